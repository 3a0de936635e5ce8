// gpurec.SolverOptions: the engine's SolverOptions, every knob an attribute. Values pass through
// setSolverOption/getSolverOption, so names, ranges and messages are the CLI's (--solver name=value).
#include "bindings.hpp"

#include "model/solver_options.hpp"

#include <cstdlib>

namespace py = pybind11;

namespace gpurec::python {

namespace {

// The text setSolverOption reads: Python's shortest round-trip form of a float, true/false for bools.
std::string optionText(const py::handle& value) {
    if (py::isinstance<py::bool_>(value)) return value.cast<bool>() ? "true" : "false";
    if (py::isinstance<py::str>(value)) return value.cast<std::string>();
    return py::repr(value).cast<std::string>();
}

// getSolverOption's text as a Python value: bool, int, float or (schedule) str.
py::object optionValue(const std::string& text) {
    if (text == "true" || text == "false") return py::bool_(text == "true");
    char* end = nullptr;
    const long asInt = std::strtol(text.c_str(), &end, 10);
    if (!text.empty() && *end == '\0') return py::int_(asInt);
    const double asDouble = std::strtod(text.c_str(), &end);
    if (!text.empty() && *end == '\0') return py::float_(asDouble);
    return py::str(text);
}

void setFromMapping(SolverOptions& options, const py::dict& values) {
    SolverOptions updated = options; // all or nothing: a bad entry keeps the old options
    for (const auto& [name, value] : values)
        setSolverOption(updated, name.cast<std::string>(), optionText(value));
    updated.validate();
    options = updated;
}

} // namespace

void registerSolverOptions(py::module_& m) {
    py::class_<SolverOptions> cls(m, "SolverOptions",
                                  "Solver knobs; keyword arguments, a dict or attribute assignment, checked "
                                  "with the CLI's ranges (ValueError naming the knob and its range)");
    cls.def(py::init([](const py::object& values, const py::kwargs& kwargs) {
                SolverOptions options;
                if (!values.is_none()) setFromMapping(options, py::dict(values));
                setFromMapping(options, kwargs);
                return options;
            }),
            py::arg("values") = py::none());
    for (const SolverOptionInfo& info : solverOptionInfo()) {
        const std::string name = info.name;
        cls.def_property(
            name.c_str(), [name](const SolverOptions& o) { return optionValue(getSolverOption(o, name)); },
            [name](SolverOptions& o, const py::object& value) {
                setSolverOption(o, name, optionText(value));
            },
            (info.help + " (" + info.range + ")").c_str());
    }
    cls.def(
        "update",
        [](SolverOptions& o, const py::object& values, const py::kwargs& kwargs) {
            py::dict all = values.is_none() ? py::dict() : py::dict(values);
            for (const auto& [k, v] : kwargs)
                all[k] = v;
            setFromMapping(o, all);
        },
        py::arg("values") = py::none(), "Sets several knobs at once; none changes when one is bad");
    cls.def("to_dict", [](const SolverOptions& o) {
        py::dict out;
        for (const SolverOptionInfo& info : solverOptionInfo())
            out[py::str(info.name)] = optionValue(getSolverOption(o, info.name));
        return out;
    });
    cls.def("copy", [](const SolverOptions& o) { return o; });
    cls.def("__repr__", [](const SolverOptions& o) {
        std::string text = "SolverOptions(";
        for (const SolverOptionInfo& info : solverOptionInfo())
            text += (text.back() == '(' ? "" : ", ") + info.name + "=" +
                    py::repr(optionValue(getSolverOption(o, info.name))).cast<std::string>();
        return text + ")";
    });
    cls.def_static(
        "info",
        [] {
            py::list out;
            for (const SolverOptionInfo& info : solverOptionInfo())
                out.append(py::make_tuple(info.name, info.range, info.help));
            return out;
        },
        "(name, range, help) of every knob, as the CLI's --help lists them");
}

} // namespace gpurec::python
