// The guided tour of WorkbenchWindow (declared in workbench_window.hpp): for a simulated dataset
// with its truth, what a duplication, a transfer and a loss look like on its species tree, each in
// the true history of one family beside the reconciliations sampled from its gene trees.
#include "panels/families_panel.hpp"
#include "panels/guided_tour_panel.hpp"
#include "panels/reconciliation_panel.hpp"
#include "window/workbench_window.hpp"

#include <QAction>
#include <QDockWidget>
#include <QFileInfo>
#include <QTabWidget>
#include <algorithm>

namespace gpurec::ui {

namespace {
QString bold(const std::string& name) {
    return "<b>" + QString::fromStdString(name).toHtmlEscaped() + "</b>";
}

// The child of `species` the lineage continues in after an SL: the one the next event is under.
int keptChild(const SpeciesTree& tree, int species, const ReconNode& node, int event) {
    const int next = node.events[event + 1].species;
    return tree.isAncestorOrSelf(tree.left(species), next) ? tree.left(species) : tree.right(species);
}

QString describe(const TourExample& e, const RecPhyloDocument& truth) {
    const SpeciesTree& tree = truth.species;
    const Reconciliation& r = truth.reconciliations[e.reconciliation];
    const QString family = bold(r.family);
    const QString where = bold(tree.name(e.what.species));
    const QString compare =
        QObject::tr("<p>Left: the truth, the event ringed. Right: the consensus of reconciliations "
                    "sampled from the gene trees at the current rates, each event with the share of "
                    "samples holding it. Does the model find it?</p>");
    switch (e.what.type) {
    case EventType::Duplication:
        return QObject::tr("<p>In the true history of %1 the gene was <b>duplicated</b> in %2: both copies "
                           "stay in %2 and each is passed on to its descendants (the square mark; each "
                           "copy gets its own colour).</p>")
                   .arg(family, where) +
               compare;
    case EventType::Transfer:
        return QObject::tr("<p>In %1 a copy of the gene was <b>transferred</b> from %2 to %3 (the arrow): "
                           "the donor keeps its copy and the recipient gains one, as by horizontal gene "
                           "transfer between contemporary lineages.</p>")
                   .arg(family, where, bold(tree.name(e.what.recipient))) +
               compare;
    case EventType::TransferLoss:
        return QObject::tr("<p>In %1 the gene left %2 for %3 (the arrow) and the copy that stayed in %2 "
                           "was <b>lost</b>: a transfer followed by a loss, which the model counts as one "
                           "event (TL).</p>")
                   .arg(family, where, bold(tree.name(e.what.recipient))) +
               compare;
    case EventType::SpeciationLoss: {
        const int kept = keptChild(tree, e.what.species, r.nodes[e.node], e.event);
        const int lost =
            kept == tree.left(e.what.species) ? tree.right(e.what.species) : tree.left(e.what.species);
        return QObject::tr("<p>In %1, when %2 split into %3 and %4, the copy in %4 was <b>lost</b>: the "
                           "lineage goes on in %3 only (a speciation followed by a loss, SL). Losses leave "
                           "no gene behind, so the gene trees show them only as species missing from a "
                           "clade.</p>")
                   .arg(family, where, bold(tree.name(kept)), bold(tree.name(lost))) +
               compare;
    }
    default:
        return QObject::tr("<p>In %1 a gene lineage was <b>lost</b> in %2.</p>").arg(family, where) + compare;
    }
}
} // namespace

GuidedTourPanel* WorkbenchWindow::guidedTour() const {
    return tour_;
}

void WorkbenchWindow::setTruth(std::shared_ptr<const RecPhyloDocument> truth, const QString& file) {
    truth_ = std::move(truth);
    truthFile_ = file;
    reconciliations_->setTruth(truth_, file);
    tourExamples_.clear();
    if (truth_ && dataset_)
        tourExamples_ = chooseTourExamples(truth_->reconciliations, [this](const std::string& family) {
            return dataset_->familyIndex(family) >= 0;
        });
    tourAction_->setEnabled(truth_ != nullptr);
}

std::vector<TourStop> WorkbenchWindow::tourStops() const {
    std::vector<TourStop> stops;
    if (!truth_ || !dataset_) return stops;
    const Dataset& d = *dataset_;
    stops.push_back(
        {tr("A simulated dataset"),
         tr("<p>These %1 gene families grew along the species tree of %2 species by <b>duplication</b>, "
            "<b>transfer</b> and <b>loss</b>; the simulator (gpurec simulate) kept each family's true "
            "history "
            "in %3.</p><p>The tour shows each kind of event in one family's true history, drawn beside the "
            "reconciliations gpurec samples from that family's gene trees. Next ▶ goes on; the tour is "
            "always under Help ▸ Guided tour.</p>")
             .arg(d.families.size())
             .arg(d.species.leafCount())
             .arg(QFileInfo(truthFile_).fileName().toHtmlEscaped())});
    for (const TourExample& e : tourExamples_) {
        const QString kind = QString::fromUtf8(tourTopicName(e.topic));
        stops.push_back({tr("What a %1 looks like").arg(kind), describe(e, *truth_)});
    }
    if (tourExamples_.empty())
        stops.push_back({tr("No events to show"),
                         tr("<p>No true history of the loaded families has a duplication, a transfer or a "
                            "loss.</p>")});
    stops.push_back(
        {tr("Your turn"),
         tr("<ul><li><b>Run ▸ Optimise</b> (F6) fits the rates; sample again and compare with the truth.</li>"
            "<li>In <b>Clade waves</b>, click a clade, then a species: the <b>Cell equation</b> splits Π "
            "into its terms.</li><li>The <b>Backtracking</b> tab under the reconciliations retells, draw by "
            "draw, how a sample was made.</li><li><b>View ▸ Presenter view</b> (F11) for the class; "
            "<b>File ▸ Export figure</b> for slides.</li></ul>")});
    return stops;
}

void WorkbenchWindow::startGuidedTour() {
    tour_->setStops(tourStops(),
                    tr("<p>The guided tour needs a dataset simulated by gpurec simulate, with its "
                       "truth/ folder beside the families file: open samples/teaching or "
                       "samples/tiny.</p>"));
    auto* dock = findChild<QDockWidget*>("tourDock");
    dock->show();
    dock->raise();
    // Below the Run panel (not a tab beside it): the lower third of the column.
    if (tabifiedDockWidgets(dock).isEmpty()) resizeDocks({dock}, {height() / 3}, Qt::Vertical);
}

void WorkbenchWindow::showTourStop(int stop) {
    const int example = stop - 1;
    if (example < 0 || example >= static_cast<int>(tourExamples_.size())) {
        reconciliations_->truthPane()->markEvent(-1, -1);
        return;
    }
    const TourExample& e = tourExamples_[example];
    const int family = dataset_->familyIndex(truth_->reconciliations[e.reconciliation].family);
    families_->selectFamily(family);
    reconciliations_->setFamilies({family}); // also when the Families table filters it out
    tabs_->setCurrentWidget(reconciliations_);
    reconciliations_->setTruthShown(true);
    reconciliations_->setMode(ReconciliationPanel::Mode::Consensus);
    reconciliations_->truthPane()->markEvent(e.node, e.event);
    const std::vector<ReconciliationGroup>& groups = reconciliations_->groups();
    if (std::none_of(groups.begin(), groups.end(),
                     [&](const ReconciliationGroup& g) { return g.family == family; }))
        reconciliations_->sample();
}

} // namespace gpurec::ui
