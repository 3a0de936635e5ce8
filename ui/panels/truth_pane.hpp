#pragma once
// Teaching: the true reconciliations of a simulated dataset (truth/reconciliations.xml) drawn beside
// the sampled ones, for the families selected, so a class compares what happened with what the
// model recovers from the gene trees. One event can be ringed (the guided tour's examples).
#include "recon/recphyloxml.hpp"

#include <QStringList>
#include <QWidget>
#include <map>
#include <memory>

namespace gpurec::ui {

class ElidingLabel;
class ReconciliationView;

class TruthPane : public QWidget {
    Q_OBJECT
  public:
    explicit TruthPane(QWidget* parent = nullptr);

    // nullptr: no truth (the pane draws nothing). `file` names it in the caption.
    void setTruth(std::shared_ptr<const RecPhyloDocument> truth, const QString& file);
    bool hasTruth() const { return truth_ != nullptr; }
    // Draws the truths of these families (those that have one, up to `limit`).
    void showFamilies(const QStringList& families, int limit);
    QStringList shownFamilies() const { return shown_; }
    // The true reconciliation of `family`, if the truth has it.
    const Reconciliation* truthOf(const QString& family) const;
    // Rings event `event` of gene node `node` in the drawing of the one family shown; −1 clears.
    void markEvent(int node, int event);
    ReconciliationView* view() const { return view_; }
    QString caption() const;

  private:
    std::shared_ptr<const RecPhyloDocument> truth_;
    std::map<QString, int> index_; // family name -> reconciliation
    QString file_;
    QStringList shown_;
    ElidingLabel* caption_;
    ReconciliationView* view_;
};

} // namespace gpurec::ui
