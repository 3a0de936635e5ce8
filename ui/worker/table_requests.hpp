#pragma once
// Requests for a family's E, Ē, Π and Π̄ tables from the session's backend, which lives on the
// engine thread: the workbench's panels ask from their own threads and wait; the engine thread
// answers them when idle and between a run's iterations, so the tables come from the device the
// session runs on (the GPU when there is one) and never race with a running optimisation.
#include "data/dataset.hpp"
#include "engine/backend.hpp"

#include <QString>
#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace gpurec::ui {

struct TableRequest {
    std::shared_ptr<const Dataset> data; // the dataset the family indices refer to
    RateParameters theta;
    SolverOptions options;
    std::vector<int> families;
};

// Answers a request (throws to fail it).
using TableSolver = std::function<std::vector<FamilyTables>(const TableRequest&)>;

class TableRequests {
  public:
    // `wake` is called, under the queue's lock, after each new request: it must make the engine
    // thread call serve() soon and must not call back into the queue.
    explicit TableRequests(std::function<void()> wake);

    // Blocks until the request is answered; throws what the solver threw, or std::runtime_error
    // once the queue is closed. Any thread but the engine's.
    std::vector<FamilyTables> request(TableRequest request);

    // Engine thread: answers the pending requests with `solve`, in arrival order, except those
    // `wait` says must wait (for data the engine thread has not opened yet), which stay queued.
    void serve(const TableSolver& solve, const std::function<bool(const TableRequest&)>& wait);

    // Fails pending and later requests with `why` (the session is going away).
    void close(const std::string& why);

  private:
    struct Pending {
        TableRequest request;
        std::promise<std::vector<FamilyTables>> answer;
    };
    std::mutex mutex_;
    std::deque<Pending> pending_;
    std::function<void()> wake_;
    std::string closed_; // non-empty once closed: the reason
};

// A FamilyTablesSource for panels: asks `requests` for the tables of `data`'s families.
FamilyTablesSource sessionTables(std::shared_ptr<TableRequests> requests,
                                 std::shared_ptr<const Dataset> data);

// Speciation categories (Dataset::speciationCategories > 1): a backend's tables hold every
// category's own set (FamilyTables::categories), each a model of one category. The panels that show
// one set per family (E, Π, the cell equation, the clade heat map) show one category's: these are
// the tables of `category` (0-based) from `source`, or the tables themselves for one category.
FamilyTablesSource categoryTables(FamilyTablesSource source, int category);
// What such a panel adds to its caption: " in speciation category 2 of 3 (s 0.73)" with several
// categories (s: its speciation weight at θ's α), "" with one.
QString categoryNote(const Dataset& data, const RateParameters& theta, int category);

} // namespace gpurec::ui
