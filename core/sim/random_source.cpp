#include "sim/random_source.hpp"

#include <cmath>

namespace gpurec {

RandomSource RandomSource::stream(std::uint64_t seed, std::uint64_t stream) {
    return RandomSource(splitMix64(splitMix64(seed) ^ stream));
}

std::uint64_t RandomSource::below(std::uint64_t n) {
    // Reject the lowest (2^64 mod n) values so that every residue is equally likely.
    const std::uint64_t threshold = (0 - n) % n;
    for (;;) {
        std::uint64_t x = bits();
        if (x >= threshold) return x % n;
    }
}

double RandomSource::exponential(double rate) {
    return -std::log1p(-uniform()) / rate;
}

double RandomSource::logUniformFactor(double spread) {
    if (spread == 1.0) return 1.0;
    return std::exp(std::log(spread) * (2.0 * uniform() - 1.0));
}

} // namespace gpurec
