#pragma once
// An open-addressing index from keys to dense ids 0, 1, 2, ...; the keys themselves live with the
// caller (a pool of clade bitsets, an array of split keys), so a lookup allocates nothing. Node-based
// std::unordered_map spent most of the amalgamation's time in malloc and cache misses.
#include <cstdint>
#include <utility>
#include <vector>

namespace gpurec {

// A strong 64-bit mix (splitmix64's finaliser): linear probing needs well-spread low bits.
inline std::uint64_t mixBits(std::uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

class DenseIdIndex {
  public:
    int size() const { return static_cast<int>(hashes_.size()); }

    // The id of the key with this hash for which `sameKey(id)` holds; otherwise the key gets the next
    // id (== size() before the call), and the caller stores it. Returns {id, inserted}.
    template <class SameKey> std::pair<int, bool> findOrAdd(std::uint64_t hash, SameKey&& sameKey) {
        if (2 * (hashes_.size() + 1) > slots_.size()) grow();
        const std::size_t mask = slots_.size() - 1;
        for (std::size_t at = hash & mask;; at = (at + 1) & mask) {
            const int id = slots_[at];
            if (id < 0) {
                slots_[at] = size();
                hashes_.push_back(hash);
                return {slots_[at], true};
            }
            if (hashes_[id] == hash && sameKey(id)) return {id, false};
        }
    }

  private:
    void grow() {
        slots_.assign(slots_.empty() ? 64 : 2 * slots_.size(), -1);
        const std::size_t mask = slots_.size() - 1;
        for (int id = 0; id < size(); ++id) {
            std::size_t at = hashes_[id] & mask;
            while (slots_[at] >= 0)
                at = (at + 1) & mask;
            slots_[at] = id;
        }
    }

    std::vector<int> slots_;            // -1: empty
    std::vector<std::uint64_t> hashes_; // per id, to re-slot on growth without the keys
};

} // namespace gpurec
