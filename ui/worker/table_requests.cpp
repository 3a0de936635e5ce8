#include "worker/table_requests.hpp"

#include <stdexcept>
#include <utility>

namespace gpurec::ui {

TableRequests::TableRequests(std::function<void()> wake) : wake_(std::move(wake)) {}

std::vector<FamilyTables> TableRequests::request(TableRequest request) {
    std::future<std::vector<FamilyTables>> answer;
    {
        std::lock_guard lock(mutex_);
        if (!closed_.empty()) throw std::runtime_error(closed_);
        pending_.push_back(Pending{std::move(request), {}});
        answer = pending_.back().answer.get_future();
        wake_();
    }
    return answer.get();
}

void TableRequests::serve(const TableSolver& solve, const std::function<bool(const TableRequest&)>& wait) {
    std::deque<Pending> waiting;
    for (;;) {
        Pending next;
        {
            std::lock_guard lock(mutex_);
            if (pending_.empty()) {
                // Waiting requests go back in front of any that came meanwhile (arrival order).
                for (auto it = waiting.rbegin(); it != waiting.rend(); ++it)
                    if (closed_.empty())
                        pending_.push_front(std::move(*it));
                    else
                        it->answer.set_exception(std::make_exception_ptr(std::runtime_error(closed_)));
                return;
            }
            next = std::move(pending_.front());
            pending_.pop_front();
        }
        if (wait(next.request)) {
            waiting.push_back(std::move(next));
            continue;
        }
        try {
            next.answer.set_value(solve(next.request));
        } catch (...) {
            next.answer.set_exception(std::current_exception());
        }
    }
}

void TableRequests::close(const std::string& why) {
    std::lock_guard lock(mutex_);
    closed_ = why.empty() ? std::string("closed") : why;
    wake_ = [] {};
    for (Pending& p : pending_)
        p.answer.set_exception(std::make_exception_ptr(std::runtime_error(closed_)));
    pending_.clear();
}

FamilyTablesSource sessionTables(std::shared_ptr<TableRequests> requests,
                                 std::shared_ptr<const Dataset> data) {
    return [requests = std::move(requests), data = std::move(data)](
               const RateParameters& theta, const SolverOptions& options, const std::vector<int>& families) {
        return requests->request(TableRequest{data, theta, options, families});
    };
}

} // namespace gpurec::ui
