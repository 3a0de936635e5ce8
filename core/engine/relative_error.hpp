#pragma once
// How far one backend's results are from the reference's: the measure `gpurec check` and the
// tests hold the CUDA backend (and its host emulation) to.
#include <vector>

namespace gpurec {

// Worst |a − ref| / max(|ref|, 1e-6 ‖ref‖∞) over the entries (the floor keeps entries near zero
// from dominating); NaN when any entry is NaN or the sizes differ.
double worstRelativeError(const std::vector<double>& a, const std::vector<double>& ref);

} // namespace gpurec
