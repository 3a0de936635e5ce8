#pragma once
// The parts of the gpurec._engine extension, each registered by its own file.
#include <pybind11/pybind11.h>

namespace gpurec::python {

void registerErrors(pybind11::module_& m);        // errors.cpp: gpurec InputError and translation
void registerSolverOptions(pybind11::module_& m); // solver_options_binding.cpp
void registerModel(pybind11::module_& m);         // model_binding.cpp
void registerSampling(pybind11::module_& m);      // sampling_binding.cpp

} // namespace gpurec::python
