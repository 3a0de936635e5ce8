#include "engine/solver_report.hpp"

#include "io/json_number.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace gpurec {

void EarlyStops::note(long count, double reached, long familiesAffected) {
    if (count <= 0) return;
    solves += count;
    families += familiesAffected;
    residual = std::max(residual, reached);
}

void EarlyStops::add(const EarlyStops& other) {
    solves += other.solves;
    families += other.families;
    residual = std::max(residual, other.residual);
}

void SolverStats::add(const SolverStats& o) {
    eIterations = std::max(eIterations, o.eIterations);
    eResidual = std::max(eResidual, o.eResidual);
    piIterations += o.piIterations;
    maxPiIterations = std::max(maxPiIterations, o.maxPiIterations);
    bicgstabIterations += o.bicgstabIterations;
    bicgstabBreakdowns += o.bicgstabBreakdowns;
    prunedClades += o.prunedClades;
    eEarly.add(o.eEarly);
    piEarly.add(o.piEarly);
    bicgstabEarly.add(o.bicgstabEarly);
}

void SolverStats::setLimits(const SolverOptions& options) {
    eEarly.iterationCap = options.e_max_iter;
    eEarly.tolerance = options.e_tol;
    piEarly.iterationCap = options.pi_iters;
    piEarly.tolerance = options.pi_tol;
    bicgstabEarly.iterationCap = options.bicgstab_max_iter;
    bicgstabEarly.tolerance = options.bicgstab_tol;
}

namespace {

std::string number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

std::string plural(long n, const std::string& one, const std::string& many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string ratesText(Rates r) {
    return "D = " + number(r.d) + ", L = " + number(r.l) + ", T = " + number(r.t);
}

// The three kinds of solve, in the order they run.
struct Kind {
    const EarlyStops SolverStats::*entry;
    const char *key, *solver, *unit, *units, *cap, *measure, *tolerance;
};
constexpr Kind kKinds[] = {
    {&SolverStats::eEarly, "e_fixed_point", "E fixed point", "solve", "solves", "e_max_iter",
     "relative change", "e_tol"},
    {&SolverStats::piEarly, "clade_self_loop", "clade self loop", "clade", "clades", "pi_iters",
     "relative change", "pi_tol"},
    {&SolverStats::bicgstabEarly, "adjoint_bicgstab", "adjoint BiCGSTAB", "solve", "solves",
     "bicgstab_max_iter", "relative residual", "bicgstab_tol"},
};

std::string warning(const EarlyStops& e, const Kind& k) {
    return std::string(k.solver) + " stopped early: " + plural(e.solves, k.unit, k.units) + " (" +
           plural(e.families, "family", "families") + ") at " + k.cap + " = " +
           std::to_string(e.iterationCap) + ", " + k.measure + " " + number(e.residual) + " > " +
           k.tolerance + " = " + number(e.tolerance);
}

} // namespace

std::vector<std::string> earlyStopWarnings(const SolverStats& s) {
    std::vector<std::string> out;
    for (const Kind& k : kKinds)
        if ((s.*k.entry).solves > 0) out.push_back(warning(s.*k.entry, k));
    return out;
}

nlohmann::json earlyStopsJson(const SolverStats& s) {
    nlohmann::json out = nlohmann::json::array();
    for (const Kind& k : kKinds) {
        const EarlyStops& e = s.*k.entry;
        if (e.solves == 0) continue;
        out.push_back({{"solver", k.key},
                       {std::string("stopped_") + k.units, e.solves},
                       {"families", e.families},
                       {k.cap, e.iterationCap},
                       {"residual_reached", e.residual},
                       {k.tolerance, e.tolerance},
                       {"message", warning(e, k)}});
    }
    return out;
}

nlohmann::json solverStatsJson(const SolverStats& s) {
    return {{"e_iterations", s.eIterations},
            {"e_residual", jsonNumber(s.eResidual)},
            {"pi_iterations", s.piIterations},
            {"max_pi_iterations", s.maxPiIterations},
            {"bicgstab_iterations", s.bicgstabIterations},
            {"bicgstab_breakdowns", s.bicgstabBreakdowns},
            {"pruned_clades", s.prunedClades},
            {"stopped_early", earlyStopsJson(s)},
            {"seconds", jsonNumber(s.seconds)}};
}

SolverStats solverStatsFromJson(const nlohmann::json& j) {
    SolverStats s;
    s.eIterations = integerField<int>(j, "e_iterations");
    s.eResidual = numberFromJson(j.at("e_residual"));
    s.piIterations = integerField<long>(j, "pi_iterations");
    s.maxPiIterations = integerField<int>(j, "max_pi_iterations");
    s.bicgstabIterations = integerField<long>(j, "bicgstab_iterations");
    s.bicgstabBreakdowns = integerField<long>(j, "bicgstab_breakdowns");
    s.prunedClades = integerField<long>(j, "pruned_clades");
    s.seconds = numberFromJson(j.at("seconds"));
    return s;
}

void requireFiniteLikelihoods(const Dataset& data, const RateParameters& theta, const Evaluation& eval,
                              const std::vector<int>* families) {
    constexpr std::size_t kNamed = 5; // families named in the message; the rest are counted
    std::vector<std::size_t> bad;
    auto look = [&](std::size_t f) {
        if (!std::isfinite(eval.logLikelihood[f])) bad.push_back(f);
    };
    if (families)
        for (int f : *families)
            look(static_cast<std::size_t>(f));
    else
        for (std::size_t f = 0; f < eval.logLikelihood.size(); ++f)
            look(f);
    if (bad.empty()) return;
    std::string list;
    for (std::size_t i = 0; i < std::min(bad.size(), kNamed); ++i) {
        const std::size_t f = bad[i];
        list += (i ? "; " : "") + data.families[f].name + " (" + number(eval.logLikelihood[f]) + ")";
        if (theta.mode() == RateMode::Genewise) list += " at " + ratesText(theta.rates(static_cast<int>(f)));
    }
    if (bad.size() > kNamed) list += "; and " + std::to_string(bad.size() - kNamed) + " more";
    std::string at;
    if (theta.mode() == RateMode::Global) {
        at = " at rates " + ratesText(theta.rates(0));
    } else if (theta.mode() == RateMode::Specieswise) {
        Rates lo = theta.rates(0), hi = lo;
        for (int r = 1; r < theta.rowCount(); ++r) {
            const Rates x = theta.rates(r);
            lo = {std::min(lo.d, x.d), std::min(lo.l, x.l), std::min(lo.t, x.t)};
            hi = {std::max(hi.d, x.d), std::max(hi.l, x.l), std::max(hi.t, x.t)};
        }
        const bool uniform = lo.d == hi.d && lo.l == hi.l && lo.t == hi.t;
        at = uniform ? " at rates " + ratesText(lo)
                     : " at per-species rates D in [" + number(lo.d) + ", " + number(hi.d) + "], L in [" +
                           number(lo.l) + ", " + number(hi.l) + "], T in [" + number(lo.t) + ", " +
                           number(hi.t) + "]";
    }
    throw NonFiniteLikelihood("the log-likelihood is not finite for " + std::to_string(bad.size()) + " of " +
                              plural(static_cast<long>(data.families.size()), "family", "families") + ": " +
                              list + at + " (rates outside the model's numerical range)");
}

} // namespace gpurec
