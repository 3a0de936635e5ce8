#pragma once
// Every knob of the fixed-point solvers and of the gradient, with its valid range.
#include <string>
#include <vector>

namespace gpurec {

enum class Schedule {
    Converged, // E and every clade's self terms iterated to tolerance (the model's fixed point)
    AleRax     // exactly AleRax v1.4's 4 Gauss-Seidel sweeps (spec 4.3, 5.2)
};
Schedule parseSchedule(const std::string& text); // converged | alerax
std::string toString(Schedule schedule);

struct SolverOptions {
    Schedule schedule = Schedule::Converged;
    int e_max_iter = 2000;       // E fixed-point iterations at most
    double e_tol = 1e-15;        // stop when max relative change of E is below this
    double e_init = 0.0;         // starting value of every E (the least fixed point is reached from 0)
    int pi_iters = 200;          // self-loop iterations per clade at most (converged schedule)
    double pi_tol = 1e-15;       // stop a clade's self loop when its max relative change is below this
    int neumann_terms = 3;       // Neumann series terms before BiCGSTAB in the adjoint self-loop solve
    int bicgstab_max_iter = 200; // BiCGSTAB iterations at most per solve
    double bicgstab_tol = 1e-14; // relative residual target of BiCGSTAB
    double bicgstab_breakdown_tol = 1e-300;   // |rho| or |omega| below this counts as breakdown
    bool use_adjoint_pruning = false;         // skip clades whose adjoint is negligible
    double adjoint_pruning_threshold = 1e-14; // relative to the largest adjoint of the family
    double pibar_side_threshold =
        0.0;         // skip transfer split terms whose partner Π̄ is below this fraction of its row
    int threads = 0; // CPU threads; 0 = all cores

    // Throws std::invalid_argument naming the field, its value and the valid range.
    void validate() const;
    bool operator==(const SolverOptions&) const = default;
};

struct SolverOptionInfo {
    std::string name;
    std::string range;
    std::string help;
};
// Names, ranges and descriptions, for the CLI help and the GUI's knobs panel.
const std::vector<SolverOptionInfo>& solverOptionInfo();
// Sets one field from text ("e_tol", "1e-12"); throws std::invalid_argument.
void setSolverOption(SolverOptions& options, const std::string& name, const std::string& value);
std::string getSolverOption(const SolverOptions& options, const std::string& name);

} // namespace gpurec
