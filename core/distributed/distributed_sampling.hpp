#pragma once
// Sampling reconciliations in a run spread over processes (process_group.hpp): each process samples
// the listed families it holds, from its backend's tables (a distributed backend's familyTables),
// and the samples are gathered for `consume` on the first process (the one that writes the
// outputs) or on every process (a workflow they all run, like the search's transfer moves). The
// draws are one process's: every family has its own random stream (recon/sampling_run.hpp).
//
// The processes go in rounds of up to kSamplingGroup families each; the exchange that ends a round
// is where a failure stops every process (GroupFailure) and where a signal is agreed on: with
// `stopOnSignal`, every process then throws Interrupted before that round is consumed (what was
// consumed before stays).
#include "distributed/process_group.hpp"
#include "recon/sampling_run.hpp"

namespace gpurec {

enum class SampleDelivery { FirstProcess, EveryProcess };

void sampleAcross(ProcessGroup& group, const Dataset& data, const RateParameters& theta,
                  const std::vector<int>& families, const SamplingSettings& settings,
                  const std::function<void(FamilySamples&&)>& consume, LikelihoodBackend& backend,
                  SampleDelivery delivery, bool stopOnSignal);

} // namespace gpurec
