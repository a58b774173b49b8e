// "Did you mean" (suggest.h): optimal string alignment distance, case-insensitive.
#include "scenario/suggest.h"

#include <algorithm>
#include <cctype>

namespace satasim::harness {

namespace {

size_t distance(const std::string &a, const std::string &b) {
    const size_t n = a.size(), m = b.size();
    std::vector<std::vector<size_t>> d(n + 1, std::vector<size_t>(m + 1));
    for (size_t i = 0; i <= n; ++i)
        d[i][0] = i;
    for (size_t j = 0; j <= m; ++j)
        d[0][j] = j;
    const auto low = [](char c) { return std::tolower(static_cast<unsigned char>(c)); };
    for (size_t i = 1; i <= n; ++i)
        for (size_t j = 1; j <= m; ++j) {
            const size_t cost = low(a[i - 1]) == low(b[j - 1]) ? 0 : 1;
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
            if (i > 1 && j > 1 && low(a[i - 1]) == low(b[j - 2]) && low(a[i - 2]) == low(b[j - 1]))
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1); // two neighbours swapped
        }
    return d[n][m];
}

} // namespace

std::string nearest_name(const std::string &got, const std::vector<std::string> &candidates) {
    if (got.empty() || got.size() > 64)
        return "";
    const size_t limit = std::max<size_t>(1, got.size() / 3);
    std::string best;
    size_t best_d = limit + 1;
    bool tie = false;
    for (const std::string &c : candidates) {
        const size_t dd = distance(got, c);
        if (dd < best_d) {
            best_d = dd;
            best = c;
            tie = false;
        } else if (dd == best_d) {
            tie = true;
        }
    }
    return best_d <= limit && !tie ? best : "";
}

std::string did_you_mean(const std::string &got, const std::vector<std::string> &candidates) {
    const std::string n = nearest_name(got, candidates);
    return n.empty() ? "" : " (did you mean '" + n + "'?)";
}

} // namespace satasim::harness
