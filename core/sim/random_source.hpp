#pragma once
// Reproducible random numbers: std::mt19937_64 for the raw bits (its output is fixed by the C++
// standard) and our own transformations, because the std:: distributions differ between standard
// libraries. Every draw is a pure function of the seed and the call sequence.
#include <cstdint>
#include <random>

namespace gpurec {

// The SplitMix64 finaliser: spreads nearby inputs over all 64 bits (stream seeds, hashed names).
constexpr std::uint64_t splitMix64(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

class RandomSource {
  public:
    explicit RandomSource(std::uint64_t seed) : engine_(seed) {}
    // An independent stream for (seed, stream), e.g. one per family, so that families can be made
    // in any order or in parallel with the same result.
    static RandomSource stream(std::uint64_t seed, std::uint64_t stream);

    std::uint64_t bits() { return engine_(); }
    // Uniform on [0, 1) with 53 random bits.
    double uniform() { return double(bits() >> 11) * 0x1.0p-53; }
    // Uniform integer in [0, n), without modulo bias; n > 0.
    std::uint64_t below(std::uint64_t n);
    // Exponential waiting time with the given rate (> 0).
    double exponential(double rate);
    // Log-uniform factor in [1/spread, spread] (spread >= 1; 1 gives exactly 1 without a draw).
    double logUniformFactor(double spread);

  private:
    std::mt19937_64 engine_;
};

} // namespace gpurec
