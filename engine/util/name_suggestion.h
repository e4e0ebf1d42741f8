// Suggesting the name a user probably meant ("strems" -> "streams") for misspelled keys, enum values
// and references to buffers, streams and events, by edit distance.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace streamscope::engine {

// s with ASCII letters in lower case: names are compared without case (suggestions, find).
std::string asciiLower(std::string_view s);

// Optimal string alignment distance: insertions, deletions, substitutions and swaps of two
// neighbouring characters each cost 1 (a swap is the commonest typo: "kenrel").
std::size_t editDistance(std::string_view a, std::string_view b);

// The candidate closest to `word`, if it is close enough to be a plausible typo: a case-insensitive
// match, or a distance of at most 1 for words of 3-4 characters (0 for shorter ones: "s1" is not a
// typo of "s2"), 2 up to 8 characters and a third of the length beyond. Ties go to the earlier
// candidate.
std::optional<std::string> nearestName(std::string_view word, const std::vector<std::string> &candidates);

// " (did you mean \"streams\"?)" or "" when nothing is close: ready to append to a message.
std::string didYouMean(std::string_view word, const std::vector<std::string> &candidates);

} // namespace streamscope::engine
