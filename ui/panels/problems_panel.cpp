#include "panels/problems_panel.hpp"

#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace gpurec::ui {

namespace {
enum Column { KindColumn, FamilyColumn, FileColumn, LineColumn, ReasonColumn };
}

ProblemsPanel::ProblemsPanel(QWidget* parent) : QWidget(parent) {
    summary_ = new QLabel(tr("No input loaded."));
    summary_->setObjectName("problemsSummary");
    list_ = new QTreeWidget;
    list_->setObjectName("problemsList");
    list_->setRootIsDecorated(false);
    list_->setAlternatingRowColors(true);
    list_->setHeaderLabels({tr("Kind"), tr("Family"), tr("File"), tr("Line"), tr("Reason")});
    list_->header()->setStretchLastSection(true);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(summary_);
    layout->addWidget(list_);
}

int ProblemsPanel::problemCount() const {
    return list_->topLevelItemCount();
}

void ProblemsPanel::showProblems(const std::vector<LoadProblem>& problems, bool loaded) {
    list_->setSortingEnabled(false);
    list_->clear();
    int errors = 0, excluded = 0, changed = 0;
    for (const LoadProblem& p : problems) {
        auto* item = new QTreeWidgetItem(list_);
        switch (p.kind) {
        case LoadProblem::Kind::Error:
            ++errors;
            item->setText(KindColumn, tr("error"));
            item->setForeground(KindColumn, QColor(180, 30, 30));
            break;
        case LoadProblem::Kind::Excluded:
            ++excluded;
            item->setText(KindColumn, tr("excluded"));
            item->setForeground(KindColumn, QColor(150, 100, 0));
            break;
        case LoadProblem::Kind::Changed:
            ++changed;
            item->setText(KindColumn, tr("changed"));
            item->setForeground(KindColumn, QColor(40, 90, 170));
            break;
        }
        item->setText(FamilyColumn, p.family);
        item->setText(FileColumn, QFileInfo(p.file).fileName());
        item->setToolTip(FileColumn, p.file);
        if (p.line > 0)
            item->setText(LineColumn, p.column > 0 ? QString("%1:%2").arg(p.line).arg(p.column)
                                                   : QString::number(p.line));
        item->setData(LineColumn, Qt::UserRole, p.line);
        item->setText(ReasonColumn, p.reason);
        item->setToolTip(ReasonColumn, p.reason);
    }
    list_->header()->setSortIndicator(
        -1, Qt::AscendingOrder); // input order (errors first) until a header is clicked
    list_->setSortingEnabled(true);
    for (int c = KindColumn; c < ReasonColumn; ++c)
        list_->resizeColumnToContents(c);
    QString text = !loaded ? tr("The input could not be loaded: %1 error(s).").arg(errors)
                   : problems.empty()
                       ? tr("No problems: every family loaded.")
                       : tr("%1 error(s), %2 family(ies) excluded; the valid families were loaded.")
                             .arg(errors)
                             .arg(excluded);
    if (changed > 0) text += tr(" %1 input file(s) changed since the session was saved.").arg(changed);
    summary_->setText(text);
}

} // namespace gpurec::ui
