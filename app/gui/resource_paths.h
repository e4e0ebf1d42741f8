// Where the app finds its bundled files: the lessons (resources/workloads) and the example traces
// recorded on a real GPU (resources/examples), next to the executable in the build tree
// (build/app/../../resources), in an install (../share/streamscope/resources), or in the source tree.
#pragma once

#include <QString>
#include <QStringList>

namespace streamscope::gui {

// The first existing resources folder, or empty.
QString resourcesDir();
QString workloadsDir();
QString examplesDir();
// Every *.sstrace of examplesDir(), sorted by name; empty when none was recorded yet.
QStringList exampleTraces();

} // namespace streamscope::gui
