#pragma once
// One node's extinction equation E = pL + pS E_f E_g + pD E² + pT E Ē, solved for E given its
// children and Ē: shared by the CPU engine and the CUDA kernels.
#include "model/host_device.hpp"

#include <cmath>

namespace gpurec {

// Least root of pD x² + (pT Ē − 1) x + c = 0, written to avoid cancellation.
GPUREC_HD inline double leastRoot(double pD, double pTEbar, double c) {
    const double b = 1.0 - pTEbar;
    const double q = b * b - 4.0 * pD * c;
    return 2.0 * c / (b + sqrt(q > 0.0 ? q : 0.0));
}

} // namespace gpurec
