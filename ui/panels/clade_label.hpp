#pragma once
// A clade as the teaching views name it: its genes in braces, or their number for a large clade.
#include "ccp/clade_set.hpp"

#include <QObject>
#include <QStringList>

namespace gpurec::ui {

inline QString cladeLabel(const CladeSet& cs, int clade) {
    QStringList genes;
    for (int g : genesOf(cs, clade))
        genes << QString::fromStdString(cs.geneNames[g]);
    if (genes.size() > 4) return QObject::tr("%1 genes").arg(genes.size());
    return "{" + genes.join(", ") + "}";
}

} // namespace gpurec::ui
