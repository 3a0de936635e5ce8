// gpurec._engine.sample: reconciliations drawn as `gpurec sample` draws them (same seed, same
// streams, same RecPhyloXML), handed back as Python objects.
#include "bindings.hpp"
#include "engine_model.hpp"

#include "recon/recphyloxml.hpp"
#include "recon/sampling_run.hpp"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

namespace py = pybind11;

namespace gpurec::python {

namespace {

using Array = py::array_t<double, py::array::c_style | py::array::forcecast>;

py::object speciesName(const SpeciesTree& species, int e) {
    return e < 0 ? py::object(py::none()) : py::object(py::str(species.name(e)));
}

py::dict reconciliationDict(const Reconciliation& r, const SpeciesTree& species) {
    py::list nodes;
    for (const ReconNode& n : r.nodes) {
        py::list events;
        for (const ReconEvent& ev : n.events) {
            py::dict d;
            d["type"] = eventName(ev.type);
            d["species"] = speciesName(species, ev.species);
            d["recipient"] = speciesName(species, ev.recipient);
            events.append(d);
        }
        py::dict d;
        d["name"] = n.name;
        d["parent"] = n.parent;
        d["children"] = n.children;
        d["events"] = events;
        d["branch_length"] = n.branchLength;
        d["clade"] = n.clade;
        nodes.append(d);
    }
    py::dict out;
    out["family"] = r.family;
    out["root"] = r.root;
    out["origin_species"] = speciesName(species, r.originSpecies);
    out["nodes"] = nodes;
    // The text of `gpurec sample`'s <family>_sample_<i>.xml.
    out["recphyloxml"] = toRecPhyloXml(species, {r});
    return out;
}

std::vector<int> familyIndices(const Dataset& data, const std::vector<std::string>& names) {
    std::vector<int> out;
    if (names.empty())
        for (int f = 0; f < static_cast<int>(data.families.size()); ++f)
            out.push_back(f);
    for (const std::string& name : names) {
        const int found = data.familyIndex(name);
        if (found < 0) throw std::invalid_argument("family '" + name + "' is not in the input");
        out.push_back(found);
    }
    return out;
}

py::list sample(EngineModel& m, const Array& theta, const Array& extra, const SolverOptions& options,
                int samples, std::uint64_t seed, const std::vector<std::string>& familyNames, double minRate,
                double maxRate) {
    const Dataset& data = m.model->dataset();
    SamplingSettings settings;
    settings.samples = samples;
    settings.seed = seed;
    settings.minRate = minRate;
    settings.maxRate = maxRate;
    settings.halveRootBranches = m.input.rooting == "UNIFORM"; // as the CLI decides it
    settings.solver = options;
    settings.solver.threads = m.input.threads;
    settings.solver.validate();
    const RateParameters params =
        m.parametersFrom(std::vector<double>(theta.data(), theta.data() + theta.size()),
                         std::vector<double>(extra.data(), extra.data() + extra.size()));
    const std::vector<int> families = familyIndices(data, familyNames);
    validateSampling(data, params, settings);
    std::vector<FamilySamples> results(data.families.size());
    {
        py::gil_scoped_release release;
        // Each family has its own slot, so the worker threads never write the same element.
        sampleFamilies(
            data, params, families, settings, [&](FamilySamples&& fs) { results[fs.family] = std::move(fs); },
            backendTables(m.model->backend(), params, settings));
    }
    py::list out;
    for (int f : families) {
        const FamilySamples& fs = results[f];
        py::list recs;
        for (const Reconciliation& r : fs.reconciliations)
            recs.append(reconciliationDict(r, data.species));
        py::dict d;
        d["family"] = data.families[f].name;
        d["log_likelihood"] = fs.logLikelihood;
        d["reconciliations"] = recs;
        // The text of `gpurec sample --xml-per-family`'s <family>_samples.xml.
        d["recphyloxml"] = toRecPhyloXml(data.species, fs.reconciliations);
        out.append(d);
    }
    return out;
}

} // namespace

void registerSampling(py::module_& m) {
    m.def("sample", &sample, py::arg("model"), py::arg("theta"), py::arg("extra"), py::arg("solver_options"),
          py::arg("samples"), py::arg("seed"), py::arg("families"), py::arg("min_rate"), py::arg("max_rate"));
}

} // namespace gpurec::python
