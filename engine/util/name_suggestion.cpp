// Edit distance and nearest-name suggestions for validation messages.
#include "engine/util/name_suggestion.h"

#include <algorithm>
#include <cctype>

namespace streamscope::engine {

std::string asciiLower(std::string_view s)
{
    std::string out(s);
    for (char &c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

std::size_t editDistance(std::string_view a, std::string_view b)
{
    const std::size_t n = a.size(), m = b.size();
    // Three rows suffice for the swap rule, which looks two rows back.
    std::vector<std::size_t> prev2(m + 1), prev(m + 1), cur(m + 1);
    for (std::size_t j = 0; j <= m; ++j)
        prev[j] = j;
    for (std::size_t i = 1; i <= n; ++i) {
        cur[0] = i;
        for (std::size_t j = 1; j <= m; ++j) {
            const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                cur[j] = std::min(cur[j], prev2[j - 2] + 1);
        }
        std::swap(prev2, prev);
        std::swap(prev, cur);
    }
    return prev[m];
}

std::optional<std::string> nearestName(std::string_view word, const std::vector<std::string> &candidates)
{
    const std::string lw = asciiLower(word);
    std::optional<std::string> best;
    std::size_t bestDistance = 0;
    for (const std::string &c : candidates) {
        const std::size_t d = editDistance(lw, asciiLower(c));
        if (!best || d < bestDistance) {
            best = c;
            bestDistance = d;
        }
    }
    if (!best)
        return std::nullopt;
    const std::size_t len = std::max(word.size(), best->size());
    // Names of one or two characters are all within one edit of each other: only a case slip counts.
    const std::size_t allowed = len <= 2 ? 0 : len <= 4 ? 1 : std::max<std::size_t>(2, len / 3);
    if (bestDistance > allowed || *best == word) // an exact match needs no suggestion
        return std::nullopt;
    return best;
}

std::string didYouMean(std::string_view word, const std::vector<std::string> &candidates)
{
    if (const auto n = nearestName(word, candidates))
        return " (did you mean \"" + *n + "\"?)";
    return {};
}

} // namespace streamscope::engine
