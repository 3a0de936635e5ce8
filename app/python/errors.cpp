// Engine exceptions as Python exceptions that carry the engine's message unchanged.
#include "bindings.hpp"

#include "io/input_error.hpp"

namespace py = pybind11;

namespace gpurec::python {

namespace {
// Kept alive for the interpreter's lifetime: the module holds a reference too.
PyObject* inputErrorClass = nullptr;

// Sets the Python error: an InputError with the message and its parts as attributes.
void setInputError(const InputError& e) {
    py::object error = py::reinterpret_borrow<py::object>(inputErrorClass)(e.what());
    error.attr("file") = e.file();
    error.attr("line") = e.line();
    error.attr("column") = e.column();
    error.attr("problem") = e.problem();
    PyErr_SetObject(inputErrorClass, error.ptr());
}

} // namespace

void registerErrors(py::module_& m) {
    // A ValueError, so that code catching bad values catches bad input files too.
    static py::exception<InputError> type(m, "InputError", PyExc_ValueError);
    inputErrorClass = type.ptr();
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const InputError& e) {
            setInputError(e);
        }
    });
}

} // namespace gpurec::python
