// gpurec._engine.Model: load, evaluate (NLL, per-family log-likelihoods, gradient), replan, and the
// rate-bound helpers. Arrays are copied in and out; the engine does all the arithmetic.
#include "bindings.hpp"
#include "engine_model.hpp"

#include "engine/solver_report.hpp"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

namespace py = pybind11;

namespace gpurec::python {

namespace {

using Array = py::array_t<double, py::array::c_style | py::array::forcecast>;

std::vector<double> toVector(const Array& a) {
    return {a.data(), a.data() + a.size()};
}

// θ-shaped: [3] for global rates, [rows, 3] otherwise.
Array thetaArray(const RateParameters& shape, const std::vector<double>& values) {
    Array out = shape.mode() == RateMode::Global ? Array(std::vector<py::ssize_t>{3})
                                                 : Array(std::vector<py::ssize_t>{shape.rowCount(), 3});
    std::copy(values.begin(), values.end(), out.mutable_data());
    return out;
}

py::dict statsDict(const SolverStats& s) {
    py::dict d;
    d["e_iterations"] = s.eIterations;
    d["e_residual"] = s.eResidual;
    d["pi_iterations"] = s.piIterations;
    d["max_pi_iterations"] = s.maxPiIterations;
    d["bicgstab_iterations"] = s.bicgstabIterations;
    d["bicgstab_breakdowns"] = s.bicgstabBreakdowns;
    d["pruned_clades"] = s.prunedClades;
    d["seconds"] = s.seconds;
    d["stopped_early"] = s.stoppedEarly();
    d["warnings"] = earlyStopWarnings(s);
    return d;
}

py::list problems(const std::vector<FamilyProblem>& list) {
    py::list out;
    for (const FamilyProblem& p : list) {
        py::dict d;
        d["family"] = p.family;
        d["message"] = p.message;
        d["file"] = p.file;
        d["line"] = p.line;
        d["column"] = p.column;
        out.append(d);
    }
    return out;
}

Array vectorArray(const std::vector<double>& values) {
    Array out(static_cast<py::ssize_t>(values.size()));
    std::copy(values.begin(), values.end(), out.mutable_data());
    return out;
}

// θ's rate rows, and the entries after them (origination weights, highways, the shape).
std::vector<double> ratesOf(const EngineModel& m, const std::vector<double>& theta) {
    return {theta.begin(), theta.begin() + static_cast<std::ptrdiff_t>(m.rateEntryCount())};
}
std::vector<double> extraOf(const EngineModel& m, const std::vector<double>& theta) {
    return {theta.begin() + static_cast<std::ptrdiff_t>(m.rateEntryCount()), theta.end()};
}

// Evaluates at the rates `theta` and the entries after them, `extra`, with `options`, without the
// GIL; a dict of NumPy arrays and statistics.
py::dict evaluate(EngineModel& m, const Array& theta, const Array& extra, const SolverOptions& options,
                  bool withGradient) {
    const RateParameters params = m.parametersFrom(toVector(theta), toVector(extra));
    SolverOptions solver = options;
    solver.threads = m.input.threads;
    Evaluation ev;
    {
        py::gil_scoped_release release;
        m.model->setSolverOptions(solver);
        m.model->setParameters(params);
        std::vector<double> gradient;
        if (withGradient)
            m.model->evaluateWithGradient(gradient);
        else
            m.model->evaluate();
        ev = m.model->lastEvaluation();
    }
    py::dict out;
    out["nll_bits"] = ev.totalNllBits;
    out["log_likelihood"] = ev.totalLogLikelihood;
    out["family_log_likelihoods"] = vectorArray(ev.logLikelihood);
    if (withGradient) {
        out["gradient"] = thetaArray(params, ratesOf(m, ev.gradient));
        out["gradient_extra"] = vectorArray(extraOf(m, ev.gradient));
    } else {
        out["gradient"] = py::none();
        out["gradient_extra"] = py::none();
    }
    out["stats"] = statsDict(ev.stats);
    return out;
}

// The bound helpers work in place on a float64 array (a NumPy array or a CPU tensor's view).
py::array_t<double> inPlace(const py::object& a, const char* what) {
    auto array = py::array_t<double>::ensure(a);
    if (!array || !(array.flags() & py::array::c_style) || !array.writeable() || !a.is(array))
        throw std::invalid_argument(std::string(what) + " must be a writable C-contiguous float64 array");
    return array;
}

} // namespace

void registerModel(py::module_& m) {
    py::class_<EngineModel> cls(m, "Model",
                                "Loaded input, θ, backend and warm starts (one thread at a time)");
    cls.def(py::init([](const std::string& species, const std::vector<std::string>& geneTrees,
                        const std::string& families, const std::vector<std::string>& mappings,
                        const std::string& mode, const std::string& device, std::array<double, 3> rates,
                        const std::string& transferConstraint, const std::string& rooting,
                        const std::string& origination, const std::string& recModel, bool noDup, bool noDl,
                        bool noTl, int minCovered, bool strict, int threads, double gpuMemoryBytes,
                        const SolverOptions& solver, int gammaCategories, double gammaAlpha,
                        const std::string& highwaysFile, bool pairwiseTransfers, bool pruneSpeciesTree,
                        const std::string& fractionMissingFile) {
                ModelInput in;
                in.paths.speciesTree = species;
                in.paths.geneTrees = geneTrees;
                in.paths.familiesFile = families;
                in.paths.geneTreeMappings = mappings;
                in.paths.highwaysFile = highwaysFile;
                in.paths.fractionMissingFile = fractionMissingFile;
                in.mode = mode;
                in.device = device;
                in.rates = {rates[0], rates[1], rates[2]};
                in.transferConstraint = transferConstraint;
                in.rooting = rooting;
                in.origination = origination;
                in.events = EventModel{parseRecModel(recModel), noDup, noDl, noTl};
                in.events.pairwiseTransfers = pairwiseTransfers;
                in.gammaCategories = gammaCategories;
                in.gammaAlpha = gammaAlpha;
                in.pruneSpeciesTree = pruneSpeciesTree;
                in.minCoveredSpecies = minCovered;
                in.strict = strict;
                in.threads = threads;
                in.gpuMemoryBytes = gpuMemoryBytes;
                in.solver = solver;
                py::gil_scoped_release release; // loading parses many files
                return std::make_unique<EngineModel>(in);
            }),
            py::arg("species_tree"), py::arg("gene_trees"), py::arg("families"), py::arg("mappings"),
            py::arg("mode"), py::arg("device"), py::arg("rates"), py::arg("transfer_constraint"),
            py::arg("gene_tree_rooting"), py::arg("origination"), py::arg("rec_model"), py::arg("no_dup"),
            py::arg("no_dl"), py::arg("no_tl"), py::arg("min_covered_species"), py::arg("strict"),
            py::arg("threads"), py::arg("gpu_memory_bytes"), py::arg("solver_options"),
            py::arg("speciation_gamma_categories"), py::arg("gamma_alpha"), py::arg("highways_file"),
            py::arg("pairwise_transfers"), py::arg("prune_species_tree"), py::arg("fraction_missing_file"));
    cls.def("evaluate", &evaluate, py::arg("theta"), py::arg("extra"), py::arg("solver_options"),
            py::arg("gradient"));
    cls.def("initial_theta", [](const EngineModel& e) {
        return thetaArray(e.model->parameters(), ratesOf(e, e.model->parameters().theta()));
    });
    cls.def("initial_extra",
            [](const EngineModel& e) { return vectorArray(extraOf(e, e.model->parameters().theta())); });
    cls.def_property_readonly("extra_names", [](const EngineModel& e) {
        return e.model->parameters().extraEntryNames(e.model->dataset().species.names());
    });
    cls.def(
        "extra_bounds",
        [](const EngineModel& e, double minRate, double maxRate) {
            std::vector<double> lower, upper;
            e.model->parameters().entryBounds(minRate, maxRate, lower, upper);
            return py::make_tuple(vectorArray(extraOf(e, lower)), vectorArray(extraOf(e, upper)));
        },
        py::arg("min_rate"), py::arg("max_rate"),
        "log2 bounds (lower, upper) of the extra entries: weights and highways in [min_rate, max_rate], "
        "the shape α in AleRax's [0.0201, 100]");
    cls.def_property_readonly("mode",
                              [](const EngineModel& e) { return toString(e.model->parameters().mode()); });
    cls.def_property_readonly("species_names",
                              [](const EngineModel& e) { return e.model->dataset().species.names(); });
    cls.def_property_readonly("family_names", [](const EngineModel& e) {
        std::vector<std::string> out;
        for (const GeneFamily& f : e.model->dataset().families)
            out.push_back(f.name);
        return out;
    });
    cls.def_property_readonly("device", [](const EngineModel& e) { return e.deviceDescription; });
    cls.def_property_readonly("device_note", [](const EngineModel& e) { return e.deviceNote; });
    cls.def_property_readonly("backend_name", [](EngineModel& e) { return e.model->backend().name(); });
    cls.def_property_readonly("warnings", [](const EngineModel& e) { return e.loaded.warnings; });
    cls.def_property_readonly("excluded", [](const EngineModel& e) { return problems(e.loaded.excluded); });
    cls.def_property_readonly("skipped", [](const EngineModel& e) { return problems(e.loaded.errors); });
    cls.def("clear_warm_starts", [](EngineModel& e) { e.model->clearWarmStarts(); });
    cls.def(
        "replan",
        [](EngineModel& e, double memoryBytes, int maxFamiliesPerBatch) {
            BatchLimits limits;
            limits.memoryBytes = memoryBytes;
            limits.maxFamiliesPerBatch = maxFamiliesPerBatch;
            py::gil_scoped_release release;
            e.model->backend().replan(limits);
        },
        py::arg("memory_bytes"), py::arg("max_families_per_batch"));
    cls.def("plan_summary", [](EngineModel& e) { return e.model->backend().planSummary(); });

    m.def(
        "project_rate_gradient",
        [](const py::object& theta, const py::object& grad, double minRate, double maxRate) {
            auto t = inPlace(theta, "theta");
            auto g = inPlace(grad, "grad");
            if (t.size() != g.size()) throw std::invalid_argument("theta and grad differ in size");
            std::vector<double> tv(t.data(), t.data() + t.size()), gv(g.data(), g.data() + g.size());
            projectRateGradient(tv, gv, minRate, maxRate);
            std::copy(gv.begin(), gv.end(), g.mutable_data());
        },
        py::arg("theta"), py::arg("grad"), py::arg("min_rate"), py::arg("max_rate"),
        "Zeroes, in place, the components of grad that would push log2 θ past a bound");
    m.def(
        "clamp_log_rate",
        [](const py::object& theta, double minRate, double maxRate) {
            auto t = inPlace(theta, "theta");
            std::vector<double> tv(t.data(), t.data() + t.size());
            clampLogRate(tv, minRate, maxRate);
            std::copy(tv.begin(), tv.end(), t.mutable_data());
        },
        py::arg("theta"), py::arg("min_rate"), py::arg("max_rate"),
        "Clamps log2 θ, in place, into [log2 min_rate, log2 max_rate]");
}

} // namespace gpurec::python
