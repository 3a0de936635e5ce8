#pragma once
// Topological waves of clades (spec 5.4): a clade's wave is one more than the latest wave of any
// child in any of its splits, so every wave only reads finished waves. Cross-family waves merge
// wave k of every family, the unit of parallel work on the GPU.
#include "data/dataset.hpp"

#include <vector>

namespace gpurec {

enum class WavePhase { Leaves = 1, Internal = 2, Root = 3 };

struct FamilyWaves {
    std::vector<int> cladeWave; // per clade
    int waveCount = 0;
};

FamilyWaves computeFamilyWaves(const CladeSet& clades);

// One family's clades in the order a wave-by-wave solve finishes them: wave by wave, by clade index
// within a wave (the clades of one wave are independent). The workbench's wave stepper walks it.
std::vector<int> cladesInWaveOrder(const FamilyWaves& waves);
// At most `maxSteps` (≥ 2) entries of `order`, evenly spread, keeping its first and last: the steps
// shown for a family too large to step through clade by clade.
std::vector<int> spreadSteps(const std::vector<int>& order, int maxSteps);

struct CladeRef {
    int family;
    int clade;
};

struct CrossFamilyWave {
    std::vector<CladeRef> clades;
    long long splits = 0;
};

// Wave k holds wave k of every family, its clades in family order (then by clade index). Families'
// root clades are moved to a final wave of their own (phase 3) so the root likelihoods are read after
// every family has finished.
struct WaveSchedule {
    std::vector<CrossFamilyWave> waves;
    std::vector<WavePhase> phase;
};

WaveSchedule computeWaveSchedule(const Dataset& data);

} // namespace gpurec
