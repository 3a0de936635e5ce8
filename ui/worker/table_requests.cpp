#include "worker/table_requests.hpp"

#include "model/gamma_categories.hpp"

#include <QObject>
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

FamilyTablesSource categoryTables(FamilyTablesSource source, int category) {
    return [source = std::move(source), category](const RateParameters& theta, const SolverOptions& options,
                                                  const std::vector<int>& families) {
        std::vector<FamilyTables> tables = source(theta, options, families);
        for (FamilyTables& t : tables)
            if (!t.categories.empty()) t = std::move(t.categories.at(category));
        return tables;
    };
}

QString categoryNote(const Dataset& data, const RateParameters& theta, int category) {
    const int k = data.speciationCategories;
    if (k < 2 || theta.shapeEntry() < 0) return {};
    return QObject::tr(" in speciation category %1 of %2 (s %3)")
        .arg(category + 1)
        .arg(k)
        .arg(gammaCategoryRates(theta.speciationShape(), k).at(category), 0, 'g', 3);
}

} // namespace gpurec::ui
