#pragma once
// The run's process group: the MPI world when the program was started by an MPI launcher
// (mpirun, mpiexec, srun: it sets OMPI_COMM_WORLD_SIZE, PMI_SIZE or PMIX_RANK), this process
// alone otherwise or in a build without MPI (no_mpi.cpp). MPI is initialised here and finalised
// when the group is destroyed; only the thread that started it calls MPI.
#include "distributed/process_group.hpp"

#include <memory>

namespace gpurec {

std::unique_ptr<ProcessGroup> startProcessGroup(int& argc, char**& argv);
// Whether this build can run as several processes (CMake found MPI).
bool builtWithMpi();

} // namespace gpurec
