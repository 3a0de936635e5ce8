#include "engine/wave_schedule.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace gpurec {

FamilyWaves computeFamilyWaves(const CladeSet& cs) {
    FamilyWaves w;
    w.cladeWave.assign(cs.cladeCount(), 0);
    // Clades are ordered children first, so one forward pass suffices.
    for (int c = 0; c < cs.cladeCount(); ++c) {
        int wave = 0;
        for (int k = cs.splitOffset[c]; k < cs.splitOffset[c + 1]; ++k)
            wave = std::max({wave, w.cladeWave[cs.splits[k].left] + 1, w.cladeWave[cs.splits[k].right] + 1});
        w.cladeWave[c] = wave;
        w.waveCount = std::max(w.waveCount, wave + 1);
    }
    return w;
}

std::vector<int> cladesInWaveOrder(const FamilyWaves& waves) {
    std::vector<int> order(waves.cladeWave.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return waves.cladeWave[a] < waves.cladeWave[b]; });
    return order;
}

std::vector<int> spreadSteps(const std::vector<int>& order, int maxSteps) {
    const std::size_t n = order.size();
    if (maxSteps < 2) throw std::invalid_argument("spreadSteps needs at least 2 steps");
    if (n <= static_cast<std::size_t>(maxSteps)) return order;
    std::vector<int> out(maxSteps);
    for (int i = 0; i < maxSteps; ++i) // i·(n−1)/(maxSteps−1), rounded down: strictly increasing
        out[i] = order[static_cast<std::size_t>(i) * (n - 1) / (maxSteps - 1)];
    return out;
}

WaveSchedule computeWaveSchedule(const Dataset& data) {
    WaveSchedule s;
    int maxWaves = 0;
    std::vector<FamilyWaves> perFamily;
    for (const GeneFamily& f : data.families) {
        perFamily.push_back(computeFamilyWaves(f.clades));
        maxWaves = std::max(maxWaves, perFamily.back().waveCount);
    }
    // Waves 0..maxWaves-2 hold leaves and internal clades; the last holds every root.
    const int internalWaves = std::max(1, maxWaves - 1);
    s.waves.resize(internalWaves + 1);
    for (int f = 0; f < static_cast<int>(data.families.size()); ++f) {
        const CladeSet& cs = data.families[f].clades;
        for (int c = 0; c < cs.cladeCount(); ++c) {
            int wave = c == cs.rootClade() && cs.cladeCount() > 1 ? internalWaves : perFamily[f].cladeWave[c];
            s.waves[wave].clades.push_back({f, c});
            s.waves[wave].splits += cs.splitOffset[c + 1] - cs.splitOffset[c];
        }
    }
    while (!s.waves.empty() && s.waves.back().clades.empty())
        s.waves.pop_back();
    s.phase.resize(s.waves.size());
    for (std::size_t k = 0; k < s.waves.size(); ++k)
        s.phase[k] = k == 0                    ? WavePhase::Leaves
                     : k + 1 == s.waves.size() ? WavePhase::Root
                                               : WavePhase::Internal;
    return s;
}

} // namespace gpurec
