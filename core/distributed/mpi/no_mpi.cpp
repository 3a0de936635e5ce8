// The process group of a build without MPI: this process alone (mpi_process_group.hpp).
#include "distributed/mpi/mpi_process_group.hpp"

namespace gpurec {

std::unique_ptr<ProcessGroup> startProcessGroup(int&, char**&) {
    return singleProcess();
}

bool builtWithMpi() {
    return false;
}

} // namespace gpurec
