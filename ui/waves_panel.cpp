#include "waves_panel.hpp"

#include <QLabel>
#include <QSplitter>
#include <QToolButton>
#include <QVBoxLayout>

namespace gpurec::ui {

WavesPanel::WavesPanel(QWidget* parent) : QWidget(parent) {
    plot_ = new WavePlot;
    plot_->setMinimumHeight(160);
    dag_ = new CladeDagView;
    dag_->setObjectName("cladeDag");
    caption_ = new QLabel(tr("Select a family in the Families table to see its clades by wave."));
    caption_->setWordWrap(true);
    auto* fit = new QToolButton;
    fit->setText(tr("Fit"));
    fit->setAutoRaise(true);
    fit->setToolTip(tr("Zoom to fit the family's clades"));
    auto* dagBox = new QWidget;
    auto* dagLayout = new QVBoxLayout(dagBox);
    dagLayout->setContentsMargins(0, 0, 0, 0);
    auto* captionRow = new QHBoxLayout;
    captionRow->addWidget(caption_, 1);
    captionRow->addWidget(fit);
    dagLayout->addLayout(captionRow);
    dagLayout->addWidget(dag_, 1);
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(plot_);
    split->addWidget(dagBox);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(split);
    connect(fit, &QToolButton::clicked, dag_, &CladeDagView::fitAll);
    connect(dag_, &CladeDagView::cladeSelected, this, [this](int clade) {
        if (clade >= 0 && family_ >= 0) emit cladeSelected(family_, clade);
    });
}

void WavesPanel::setDataset(std::shared_ptr<const Dataset> data, std::shared_ptr<const WaveSchedule> waves) {
    dag_->setFamily(nullptr);
    data_ = std::move(data);
    waves_ = std::move(waves);
    family_ = -1;
    plot_->setSchedule(waves_.get());
}

void WavesPanel::setSelectedFamily(int family) {
    if (!data_ || family == family_) return;
    family_ = family;
    plot_->setSelectedFamily(family);
    if (family < 0) {
        dag_->setFamily(nullptr);
        caption_->setText(tr("Select a family in the Families table to see its clades by wave."));
        return;
    }
    const GeneFamily& f = data_->families[family];
    dag_->setFamily(&f);
    caption_->setText(
        tr("Family %1: %2 clades, %3 splits. Columns are waves (single genes on the left, the whole "
           "family on the right); circle size grows with the genes in the clade. Click a clade to see "
           "its Π on the species tree.")
            .arg(QString::fromStdString(f.name))
            .arg(f.clades.cladeCount())
            .arg(f.clades.splitCount()));
}

} // namespace gpurec::ui
