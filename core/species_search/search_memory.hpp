#pragma once
// What a HYBRID search has learned that steers its later decisions, beyond where it stands
// (SearchPosition): the candidates settled at the current rates, the SPR memory and the SPR
// cutoff's statistics, the pre-screen's calibration, the count that seeds each transfer round and
// the KH test's state. Kept in checkpoint.json beside the position, so that a resumed search skips,
// screens and accepts as the uninterrupted one would.
#include "species_search/prescreen.hpp"
#include "species_search/search_supports.hpp"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

namespace gpurec {

// A topology's (or an SPR move's local shape's) two 64-bit hashes and the value the search holds
// for it.
struct KeyedValue {
    std::uint64_t first = 0, second = 0;
    double value = 0.0;
};

struct SearchMemory {
    std::vector<KeyedValue> settled;   // candidates settled at the current rates: their log-likelihoods
    std::vector<KeyedValue> sprMemory; // local move shapes: their drops below the tree they were offered on
    double dropSum = 0.0;              // the settled candidates' drops (the SPR cutoff's mean) ...
    long long drops = 0;               // ... over this many
    std::uint64_t transferRounds = 0;
    std::optional<PrescreenCalibration> screening, confirming;
    BranchKH::State kh;
};

// Every value is read back bit for bit (infinities and NaN by name: JSON numbers cannot hold them).
nlohmann::json searchMemoryJson(const SearchMemory& memory);
// Throws std::invalid_argument naming what is missing or malformed.
SearchMemory searchMemoryFromJson(const nlohmann::json& json);

} // namespace gpurec
