#include "panels/truth_pane.hpp"

#include "views/reconciliation_view.hpp"
#include "window/eliding_label.hpp"

#include <QVBoxLayout>

namespace gpurec::ui {

TruthPane::TruthPane(QWidget* parent) : QWidget(parent) {
    caption_ = new ElidingLabel;
    caption_->setObjectName("truthCaption");
    caption_->setAccessibleName(tr("True reconciliation caption"));
    view_ = new ReconciliationView;
    view_->setObjectName("truthView");
    view_->setAccessibleName(tr("True reconciliation"));
    view_->setAccessibleDescription(
        tr("The reconciliation the simulator made, from truth/reconciliations.xml"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(caption_);
    layout->addWidget(view_, 1);
    showFamilies({}, 0);
}

void TruthPane::setTruth(std::shared_ptr<const RecPhyloDocument> truth, const QString& file) {
    truth_ = std::move(truth);
    file_ = file;
    index_.clear();
    if (truth_)
        for (int i = 0; i < static_cast<int>(truth_->reconciliations.size()); ++i)
            index_.emplace(QString::fromStdString(truth_->reconciliations[i].family), i);
    view_->setSpecies(truth_ ? &truth_->species : nullptr);
    showFamilies({}, 0);
}

const Reconciliation* TruthPane::truthOf(const QString& family) const {
    auto it = index_.find(family);
    return it == index_.end() ? nullptr : &truth_->reconciliations[it->second];
}

void TruthPane::showFamilies(const QStringList& families, int limit) {
    shown_.clear();
    std::vector<const Reconciliation*> drawn;
    for (const QString& family : families) {
        if (static_cast<int>(drawn.size()) >= limit) break;
        if (const Reconciliation* r = truthOf(family)) {
            drawn.push_back(r);
            shown_ << family;
        }
    }
    view_->setStoryProgress(std::nullopt);
    view_->showReconciliations(drawn, shown_);
    view_->fitAll();
    if (!truth_)
        caption_->setText(tr("No true reconciliations: this dataset was not simulated here"));
    else if (shown_.isEmpty())
        caption_->setText(tr("True history: select a family that has one"));
    else
        caption_->setText(tr("True history of %1").arg(shown_.join(", ")));
    caption_->setToolTip(truth_ ? tr("As simulated: %1").arg(file_) : QString());
}

void TruthPane::markEvent(int node, int event) {
    if (shown_.size() != 1 || node < 0) {
        view_->setStoryProgress(std::nullopt);
        return;
    }
    // Everything told (nothing fades) and the event ringed.
    const Reconciliation& r = *truthOf(shown_.front());
    ReconciliationView::StoryProgress progress;
    for (const ReconNode& n : r.nodes)
        progress.told.emplace_back(n.events.size(), 1);
    progress.node = node;
    progress.event = event;
    view_->setStoryProgress(progress);
}

QString TruthPane::caption() const {
    return caption_->text();
}

} // namespace gpurec::ui
