#include "optim/optimization_trace.hpp"

#include "io/output_file.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace gpurec {

RateSummary summarizeRates(const RateParameters& theta) {
    RateSummary s;
    const int rows = theta.rowCount();
    double sum[3] = {0, 0, 0}, lo[3], hi[3];
    for (int k = 0; k < 3; ++k)
        lo[k] = hi[k] = theta.theta()[k];
    for (int r = 0; r < rows; ++r)
        for (int k = 0; k < 3; ++k) {
            const double t = theta.theta()[3 * r + k];
            sum[k] += t;
            lo[k] = std::min(lo[k], t);
            hi[k] = std::max(hi[k], t);
        }
    auto rates = [](double d, double l, double t) { return Rates{std::exp2(d), std::exp2(l), std::exp2(t)}; };
    s.geometricMean = rates(sum[0] / rows, sum[1] / rows, sum[2] / rows);
    s.smallest = rates(lo[0], lo[1], lo[2]);
    s.largest = rates(hi[0], hi[1], hi[2]);
    return s;
}

std::string traceCsvHeader() {
    return "iteration,nll_bits,ll_nats,grad_norm,D,L,T,D_min,D_max,L_min,L_max,T_min,T_max,evaluations,"
           "e_iterations,pi_iterations,max_pi_iterations,bicgstab_iterations,bicgstab_breakdowns,pruned_"
           "clades,"
           "eval_seconds,seconds";
}

std::string traceCsvRow(const IterationReport& r) {
    const RateSummary s = summarizeRates(*r.theta);
    char buf[640];
    std::snprintf(
        buf, sizeof buf,
        "%d,%.17g,%.17g,%.6g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%d,%d,%ld,%d,%ld,%ld,%ld,%.6f,%.6f",
        r.iteration, r.nllBits, -r.nllBits * std::log(2.0), r.gradNorm, s.geometricMean.d, s.geometricMean.l,
        s.geometricMean.t, s.smallest.d, s.largest.d, s.smallest.l, s.largest.l, s.smallest.t, s.largest.t,
        r.evaluations, r.stats.eIterations, r.stats.piIterations, r.stats.maxPiIterations,
        r.stats.bicgstabIterations, r.stats.bicgstabBreakdowns, r.stats.prunedClades, r.stats.seconds,
        r.seconds);
    return buf;
}

std::string progressLine(const IterationReport& r, PresentRates present) {
    const RateSummary s = summarizeRates(*r.theta);
    const bool global = r.theta->rowCount() == 1;
    char transfer[32] = "";
    if (present.transfer) std::snprintf(transfer, sizeof transfer, " T %.4g", s.geometricMean.t);
    char buf[320];
    std::snprintf(buf, sizeof buf,
                  "iter %4d  NLL %.10f bits  |grad| %.3e  %s D %.4g L %.4g%s  (%d evals, %.2f s)",
                  r.iteration, r.nllBits, r.gradNorm, global ? "rates" : "geo-mean", s.geometricMean.d,
                  s.geometricMean.l, transfer, r.evaluations, r.seconds);
    return buf;
}

void prepareTraceFile(const std::string& path, int keptIterations) {
    std::string text = traceCsvHeader() + "\n";
    std::ifstream old(path, std::ios::binary);
    std::string line;
    if (keptIterations > 0 && old && std::getline(old, line)) {
        // A row counts only with its newline (getline then stops before the end of the file).
        while (std::getline(old, line) && !old.eof()) {
            std::istringstream fields(line);
            int iteration = -1;
            if (fields >> iteration && fields.peek() == ',' && iteration < keptIterations)
                text += line + "\n";
        }
    }
    writeFileAtomically(path, text);
}

} // namespace gpurec
