#include "model/solver_options.hpp"

#include "io/number_text.hpp"

#include <charconv>
#include <cmath>
#include <stdexcept>
#include <variant>

namespace gpurec {

Schedule parseSchedule(const std::string& text) {
    if (text == "converged") return Schedule::Converged;
    if (text == "alerax") return Schedule::AleRax;
    throw std::invalid_argument("unknown schedule '" + text + "' (expected converged or alerax)");
}

std::string toString(Schedule schedule) {
    return schedule == Schedule::Converged ? "converged" : "alerax";
}

namespace {

using Field = std::variant<int SolverOptions::*, double SolverOptions::*, bool SolverOptions::*,
                           Schedule SolverOptions::*>;

struct Knob {
    SolverOptionInfo info;
    Field field;
    double min, max;
};

const std::vector<Knob>& knobs() {
    static const std::vector<Knob> table = {
        {{"schedule", "converged|alerax",
          "converged: iterate to tolerance (the model's fixed point); alerax: exactly AleRax v1.4's 4 "
          "sweeps"},
         &SolverOptions::schedule,
         0,
         0},
        {{"e_max_iter", "1..1000000", "Maximum iterations of the extinction-probability (E) fixed point"},
         &SolverOptions::e_max_iter,
         1,
         1e6},
        {{"e_tol", "0..1e-2", "E iteration stops when the largest relative change falls below this"},
         &SolverOptions::e_tol,
         0,
         1e-2},
        {{"e_init", "0..1", "Starting value of every E; 0 reaches the least fixed point monotonically"},
         &SolverOptions::e_init,
         0,
         1},
        {{"pi_iters", "1..100000",
          "Maximum self-loop iterations per clade (SL, DL, TL terms) in the converged schedule"},
         &SolverOptions::pi_iters,
         1,
         1e5},
        {{"pi_tol", "0..1e-2", "A clade's self loop stops when its largest relative change falls below this"},
         &SolverOptions::pi_tol,
         0,
         1e-2},
        {{"neumann_terms", "0..100",
          "Neumann-series terms used to start each adjoint self-loop solve before BiCGSTAB"},
         &SolverOptions::neumann_terms,
         0,
         100},
        {{"bicgstab_max_iter", "0..10000",
          "BiCGSTAB iterations at most per adjoint solve (0: Neumann terms only)"},
         &SolverOptions::bicgstab_max_iter,
         0,
         1e4},
        {{"bicgstab_tol", "0..1e-2", "Relative residual at which BiCGSTAB stops"},
         &SolverOptions::bicgstab_tol,
         0,
         1e-2},
        {{"bicgstab_breakdown_tol", "0..1e-6",
          "BiCGSTAB declares breakdown (and falls back to fixed-point sweeps) below this"},
         &SolverOptions::bicgstab_breakdown_tol,
         0,
         1e-6},
        {{"use_adjoint_pruning", "true|false",
          "Skip clades whose adjoint is negligible in the backward pass"},
         &SolverOptions::use_adjoint_pruning,
         0,
         1},
        {{"adjoint_pruning_threshold", "0..1e-3",
          "Adjoint entries below this fraction of the family's largest are dropped when pruning"},
         &SolverOptions::adjoint_pruning_threshold,
         0,
         1e-3},
        {{"pibar_side_threshold", "0..1e-3",
          "Transfer split terms whose partner clade's Π̄ row peak is below this fraction of the clade's Π "
          "peak are skipped (0: exact)"},
         &SolverOptions::pibar_side_threshold,
         0,
         1e-3},
        {{"threads", "0..4096", "CPU threads (0: all cores)"}, &SolverOptions::threads, 0, 4096},
    };
    return table;
}

const Knob& findKnob(const std::string& name) {
    for (const Knob& k : knobs())
        if (k.info.name == name) return k;
    std::string names;
    for (const Knob& k : knobs())
        names += (names.empty() ? "" : ", ") + k.info.name;
    throw std::invalid_argument("unknown solver option '" + name + "' (known: " + names + ")");
}

void checkRange(const Knob& k, double v) {
    if (!(v >= k.min && v <= k.max))
        throw std::invalid_argument("solver option " + k.info.name + " = " + shortestNumberText(v) +
                                    " is outside its range " + k.info.range);
}

} // namespace

const std::vector<SolverOptionInfo>& solverOptionInfo() {
    static const std::vector<SolverOptionInfo> info = [] {
        std::vector<SolverOptionInfo> out;
        for (const Knob& k : knobs())
            out.push_back(k.info);
        return out;
    }();
    return info;
}

void SolverOptions::validate() const {
    for (const Knob& k : knobs()) {
        if (auto p = std::get_if<int SolverOptions::*>(&k.field)) checkRange(k, this->**p);
        if (auto p = std::get_if<double SolverOptions::*>(&k.field)) checkRange(k, this->**p);
    }
}

void setSolverOption(SolverOptions& options, const std::string& name, const std::string& value) {
    const Knob& k = findKnob(name);
    SolverOptions updated = options;
    if (auto p = std::get_if<Schedule SolverOptions::*>(&k.field)) {
        updated.*(*p) = parseSchedule(value);
    } else if (auto p = std::get_if<bool SolverOptions::*>(&k.field)) {
        if (value == "true" || value == "1" || value == "on")
            updated.*(*p) = true;
        else if (value == "false" || value == "0" || value == "off")
            updated.*(*p) = false;
        else
            throw std::invalid_argument("solver option " + name + " expects true or false, got '" + value +
                                        "'");
    } else {
        // Decimal notation only (std::stod would read 0x10 as 16).
        double v = 0;
        const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
        if (ec != std::errc() || end != value.data() + value.size() || !std::isfinite(v))
            throw std::invalid_argument("solver option " + name + " expects a number, got '" + value + "'");
        if (auto p = std::get_if<int SolverOptions::*>(&k.field)) {
            if (v != std::floor(v))
                throw std::invalid_argument("solver option " + name + " expects an integer, got '" + value +
                                            "'");
            checkRange(k, v);
            updated.*(*p) = static_cast<int>(v);
        } else {
            checkRange(k, v);
            updated.*std::get<double SolverOptions::*>(k.field) = v;
        }
    }
    options = updated;
}

std::string getSolverOption(const SolverOptions& options, const std::string& name) {
    const Knob& k = findKnob(name);
    if (auto p = std::get_if<Schedule SolverOptions::*>(&k.field)) return toString(options.*(*p));
    if (auto p = std::get_if<bool SolverOptions::*>(&k.field)) return options.*(*p) ? "true" : "false";
    if (auto p = std::get_if<int SolverOptions::*>(&k.field)) return std::to_string(options.*(*p));
    return shortestNumberText(options.*std::get<double SolverOptions::*>(k.field));
}

} // namespace gpurec
