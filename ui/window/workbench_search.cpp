// The species-tree search of WorkbenchWindow (declared in workbench_window.hpp): the Search tab's
// run on the loaded families, and its best tree saved or taken as the working tree.
#include "panels/run_panel.hpp"
#include "panels/search_panel.hpp"
#include "panels/solver_knobs_panel.hpp"
#include "window/workbench_window.hpp"

#include "io/output_file.hpp"
#include "optim/parametrization.hpp"
#include "species_search/fixed_tree_options.hpp"

#include <QFileDialog>
#include <QFileInfo>
#include <QLocale>
#include <QTabWidget>

namespace gpurec::ui {

namespace {
QString defaultTreePath(const LoadRequest& request) {
    const QString folder = QFileInfo(QString::fromStdString(request.paths.speciesTree)).absolutePath();
    return folder + "/inferred_species_tree.newick";
}
// Why the loaded model allows no species-tree search ("" when it does): gpurec search's refusals.
QString searchRefusal(const Dataset& data) {
    if (data.origination == Origination::Optimize)
        return QObject::tr("No species-tree search with OPTIMIZE origination: the origination weights belong "
                           "to the nodes of one species tree (gpurec search refuses it too).");
    if (const std::string option = fixedTreeOption(data); !option.empty())
        return QObject::tr("No species-tree search with %1: its model belongs to one fixed species tree "
                           "(gpurec search refuses it too).")
            .arg(QString::fromStdString(option));
    return {};
}
} // namespace

void WorkbenchWindow::connectSearch() {
    connect(search_, &SearchPanel::startRequested, this, &WorkbenchWindow::startSpeciesSearch);
    connect(search_, &SearchPanel::settingsChanged, this, &WorkbenchWindow::autosave);
    connect(search_, &SearchPanel::saveRequested, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Save the best species tree"),
                                                          defaultTreePath(lastRequest_),
                                                          tr("Newick trees (*.newick *.nwk);;All files (*)"));
        if (!path.isEmpty()) saveSearchedTree(path);
    });
    connect(search_, &SearchPanel::adoptRequested, this, [this] {
        const QString path = QFileDialog::getSaveFileName(
            this, tr("Save the best species tree, then reload the families on it"),
            defaultTreePath(lastRequest_), tr("Newick trees (*.newick *.nwk);;All files (*)"));
        if (!path.isEmpty()) useSearchedTree(path);
    });
    connect(&search_->run(), &SearchRun::finished, this, [this](const SearchOutcome& o) {
        if (!o.error.isEmpty())
            appendLog(tr("Species-tree search failed: %1").arg(o.error));
        else
            appendLog(tr("Species-tree search %1 after %2 candidates: log-likelihood %3 (start %4)")
                          .arg(o.stopped ? tr("stopped") : tr("finished"))
                          .arg(o.steps)
                          .arg(o.bestLogLikelihood, 0, 'f', 6)
                          .arg(o.startLogLikelihood, 0, 'f', 6));
    });
    connect(this, &WorkbenchWindow::inputLoaded, this, [this] {
        search_->run().stop(); // its results would name the previous data's tree
        search_->setDataAvailable(dataset_ != nullptr, dataset_ ? searchRefusal(*dataset_) : QString(),
                                  dataset_ ? dataset_->transferConstraint : TransferConstraint::Parents);
    });
}

void WorkbenchWindow::startSpeciesSearch() {
    if (!dataset_ || !searchRefusal(*dataset_).isEmpty()) return; // the Search tab says why
    const RateParameters& current = session_.parameters();
    Rates rates;
    if (current.mode() == RateMode::Global) {
        rates = current.rates(0);
    } else {
        try {
            rates = run_->startingRates();
        } catch (const std::exception& e) {
            appendLog(tr("Species-tree search not started: %1").arg(QString::fromStdString(e.what())));
            return;
        }
    }
    // Global rates, with the current shape α of several speciation categories.
    RateParameters theta = makeParameters(Parametrization{}, *dataset_, rates, current.speciationShape());
    tabs_->setCurrentWidget(search_);
    const SpeciesSearchSettings settings = search_->settings();
    QString details = settings.prescreen > 0 ? tr(", pre-screened on %1 % of the families")
                                                   .arg(QLocale().toString(100 * settings.prescreen, 'g', 3))
                                             : QString();
    if (settings.inferSpeciationOrder) details += tr(", inferring the speciation order");
    appendLog(
        tr("Species-tree search (%1 %2%3) started on %4 with D %5, L %6, T %7%8")
            .arg(QString::fromStdString(toString(settings.strategy)), search_->startDescription(), details,
                 run_->device())
            .arg(rates.d, 0, 'g', 6)
            .arg(rates.l, 0, 'g', 6)
            .arg(rates.t, 0, 'g', 6)
            .arg(theta.shapeEntry() >= 0 ? tr(", α %1").arg(theta.speciationShape(), 0, 'g', 6) : QString()));
    search_->start(dataset_, run_->device(), batchLimits(), knobs_->options(), std::move(theta));
}

bool WorkbenchWindow::saveSearchedTree(const QString& path) {
    const QString newick = search_->bestNewick();
    if (newick.isEmpty()) return false;
    try {
        writeFileAtomically(path.toStdString(), newick.toStdString() + "\n");
    } catch (const std::exception& e) {
        appendLog(tr("Could not save the species tree: %1").arg(QString::fromStdString(e.what())));
        return false;
    }
    appendLog(tr("Saved the best species tree of the search to %1").arg(path));
    return true;
}

bool WorkbenchWindow::useSearchedTree(const QString& path) {
    if (!saveSearchedTree(path)) return false;
    LoadRequest request = lastRequest_;
    request.paths.speciesTree = path.toStdString();
    return openInput(request);
}

} // namespace gpurec::ui
