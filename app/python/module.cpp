// gpurec._engine: the compiled half of the gpurec Python package (app/python/gpurec/ is the rest).
#include "bindings.hpp"

PYBIND11_MODULE(_engine, m) {
    m.doc() = "gpurec engine: undated DTL reconciliation likelihoods, gradients and sampling";
    gpurec::python::registerErrors(m);
    gpurec::python::registerSolverOptions(m);
    gpurec::python::registerModel(m);
    gpurec::python::registerSampling(m);
}
