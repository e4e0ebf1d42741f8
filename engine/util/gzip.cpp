// gzip decompression with zlib (see gzip.h).
#include "engine/util/gzip.h"

#include <algorithm>

#include <zlib.h>

#include "engine/model/errors.h"
#include "engine/model/units.h"
#include "engine/util/interrupt.h"

namespace streamscope::engine {

bool isGzip(std::string_view data)
{
    return data.size() >= 2 && static_cast<unsigned char>(data[0]) == 0x1f
           && static_cast<unsigned char>(data[1]) == 0x8b;
}

namespace {
// RAII for a z_stream set up by inflateInit2.
class Inflater {
public:
    Inflater()
    {
        // 16 + MAX_WBITS: expect a gzip header and trailer rather than raw zlib.
        if (inflateInit2(&m_stream, 16 + MAX_WBITS) != Z_OK)
            throw Error(ErrorKind::Io, "gzip: zlib could not be initialised");
    }
    ~Inflater() { inflateEnd(&m_stream); }
    Inflater(const Inflater &) = delete;
    Inflater &operator=(const Inflater &) = delete;
    z_stream *get() { return &m_stream; }

private:
    z_stream m_stream{};
};
} // namespace

std::size_t gunzipLimit(std::size_t compressedBytes)
{
    const std::size_t byRatio =
        compressedBytes > kMaxGunzipBytes / kGunzipRatio ? kMaxGunzipBytes : compressedBytes * kGunzipRatio;
    return std::min(kMaxGunzipBytes, std::max(kMinGunzipLimit, byRatio));
}

std::string gunzip(std::string_view data, const std::string &fileName, std::size_t maxBytes)
{
    if (maxBytes == 0)
        maxBytes = gunzipLimit(data.size());
    std::string out;
    // The size the gzip trailer states (ISIZE: the last member's size modulo 4 GiB, which for one member
    // under the limit is the whole output): reserved up front with room for a parser's padding, so that
    // the text is neither copied while it grows nor twice its size. The trailer is only a hint: data that
    // lies about it grows as before, and never past maxBytes.
    std::size_t hint = data.size() * 6;
    if (data.size() >= 18) {
        const auto *tail = reinterpret_cast<const unsigned char *>(data.data() + data.size() - 4);
        hint =
            std::size_t(tail[0]) | std::size_t(tail[1]) << 8 | std::size_t(tail[2]) << 16 | std::size_t(tail[3]) << 24;
    }
    out.reserve(std::min(hint, maxBytes) + kGunzipPadding);
    auto tooLarge = [&] {
        const std::string limit = formatBytes(maxBytes);
        return Error(ErrorKind::InvalidInput, fileName + ": decompresses to more than " + limit
                                                  + " (StreamScope reads at most " + limit
                                                  + " of decompressed data: 100 times the file's "
                                                  + formatBytes(data.size()) + ", at least 256 MiB, at most 2 GiB)");
    };
    std::size_t offset = 0;
    while (offset < data.size()) {
        Inflater inflater;
        z_stream *zs = inflater.get();
        // zlib takes at most 4 GiB of input per call (uInt); feed it in pieces of up to 1 GiB, refilled as
        // it consumes them, so that a member of any size inflates.
        std::size_t fed = 0; // bytes of this member handed to zlib so far
        auto feed = [&] {
            const std::size_t piece = std::min<std::size_t>(data.size() - offset - fed, 1u << 30);
            zs->next_in = reinterpret_cast<Bytef *>(const_cast<char *>(data.data() + offset + fed));
            zs->avail_in = static_cast<uInt>(piece);
            fed += piece;
        };
        feed();
        int rc = Z_OK;
        while (rc != Z_STREAM_END) {
            throwIfInterrupted(); // between pieces of at most 64 MiB: a fraction of a second each
            if (zs->avail_in == 0 && offset + fed < data.size())
                feed();
            if (out.size() > maxBytes)
                throw tooLarge();
            if (out.size() == out.capacity())
                out.reserve(std::min(out.capacity() * 2 + (1u << 16), maxBytes + 1));
            // Inflated into at most 1 MiB past the data at a time: resize() writes zeros into what it adds,
            // and capacity not yet needed is left untouched (a false trailer costs address space only).
            const std::size_t before = out.size();
            out.resize(before + std::min<std::size_t>(out.capacity() - before, 1u << 20));
            zs->next_out = reinterpret_cast<Bytef *>(out.data() + before);
            zs->avail_out = static_cast<uInt>(std::min<std::size_t>(out.size() - before, 64u << 20));
            const uInt availBefore = zs->avail_out;
            rc = inflate(zs, Z_NO_FLUSH);
            out.resize(before + (availBefore - zs->avail_out));
            if (out.size() > maxBytes)
                throw tooLarge();
            if (rc == Z_STREAM_END)
                break;
            if (rc == Z_BUF_ERROR && zs->avail_in == 0)
                throw Error(ErrorKind::InvalidInput, fileName + ": gzip data is truncated (ends after "
                                                         + std::to_string(out.size()) + " decompressed bytes)");
            if (rc != Z_OK && rc != Z_BUF_ERROR)
                throw Error(ErrorKind::InvalidInput, fileName + ": corrupt gzip data at compressed byte "
                                                         + std::to_string(offset + zs->total_in) + ": "
                                                         + (zs->msg ? zs->msg : "zlib error " + std::to_string(rc)));
        }
        offset += zs->total_in;
        // gzip(1) pads nothing, but some writers leave zero bytes after the last member.
        while (offset < data.size() && data[offset] == '\0')
            ++offset;
        if (offset < data.size() && !isGzip(data.substr(offset)))
            throw Error(ErrorKind::InvalidInput,
                        fileName + ": unexpected bytes after the gzip data at byte " + std::to_string(offset));
    }
    return out;
}

} // namespace streamscope::engine
