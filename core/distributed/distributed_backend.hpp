#pragma once
// The backend of a run spread over processes (process_group.hpp), in BEAGLE's manner: it wraps this
// process's own backend, made by the backend factory on the families this process holds
// (distributed_load.hpp), and implements the one engine interface, so that the clients -- the
// optimiser, the species-tree search, the sampler -- run unchanged on every process and never see
// the processes. Every process gets the whole dataset's evaluation.
//
// The results are, bit for bit, one process's: per-family values are computed by the family's
// holder exactly as one process computes them and gathered as they are; the sums over families
// (shared gradients, origination weights, statistics) are the CPU backend's own fixed-order sums,
// taken through a FamilyShareExchange: each process holds whole chunks in family order, its chunk
// rows are folded onto the running sum rank after rank (the left fold one process takes), and E is
// eliminated from the same total on every process; every process then uses rank 0's gradient (the
// CPU and CUDA backends both share their sums). A backend that cannot share its sums gives its
// share's gradient, and the processes add them in rank order: the same for any run on as many
// processes, within the solver tolerance of one process.
//
// Bytes exchanged per evaluation: every process's log-likelihoods to every process (8 per family)
// and, with a gradient, the genewise rows (24 per family, and 8 per transfer highway) or rank 0's θ
// gradient (8 per entry: 3·S for specieswise rates); the shared modes' gradient sums pass once
// along the ranks and back ((6 or 7)·S doubles, and one per highway, per process; genewise: one
// per highway and family) -- docs/performance.md has the model.
#include "distributed/process_group.hpp"
#include "engine/backend.hpp"

#include <functional>
#include <memory>
#include <string>

namespace gpurec {

// Makes this process's backend on the families it holds.
using LocalBackendFactory = std::function<std::unique_ptr<LikelihoodBackend>(std::shared_ptr<const Dataset>)>;

// `whole`: the dataset as this process sees it, every family placed on a process in rank order
// (GeneFamily::holder). `familiesPerChunk` (0: the engine's rule for the whole dataset) is the
// chunking the families were placed at. Throws std::invalid_argument for families not placed so.
std::unique_ptr<LikelihoodBackend> makeDistributedBackend(ProcessGroup& group,
                                                          std::shared_ptr<const Dataset> whole,
                                                          const LocalBackendFactory& makeLocal,
                                                          int familiesPerChunk = 0);

// The device of `--device` for the process of rank `hostRank` on its host, whose CUDA devices are
// `deviceCount`: cuda and auto take device hostRank (auto: the CPU on a host without one); cuda:N
// is shared by the host's processes as asked. Throws std::runtime_error for more processes on a
// host than its devices.
std::string deviceForProcess(const std::string& device, int hostRank, int deviceCount);

} // namespace gpurec
