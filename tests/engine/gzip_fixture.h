// Gzip data for the tests that read compressed files: one gzip member written by zlib (windowBits 15 + 16,
// a gzip header and trailer). level 0 writes stored blocks; name, when given, goes into the header
// (FNAME). Empty when zlib fails, which makes the test that reads it fail.
#pragma once

#include <string>
#include <string_view>

#include <zlib.h>

namespace streamscope::testing {

inline std::string gzipped(std::string_view data, int level = Z_DEFAULT_COMPRESSION, const char *name = nullptr)
{
    z_stream z{};
    if (deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return {};
    gz_header header{};
    if (name) {
        header.name = reinterpret_cast<Bytef *>(const_cast<char *>(name));
        header.os = 3;
        deflateSetHeader(&z, &header);
    }
    std::string out(deflateBound(&z, uLong(data.size())) + 64, '\0');
    z.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(data.data()));
    z.avail_in = uInt(data.size());
    z.next_out = reinterpret_cast<Bytef *>(out.data());
    z.avail_out = uInt(out.size());
    const int rc = deflate(&z, Z_FINISH);
    out.resize(z.total_out);
    deflateEnd(&z);
    return rc == Z_STREAM_END ? out : std::string();
}

} // namespace streamscope::testing
