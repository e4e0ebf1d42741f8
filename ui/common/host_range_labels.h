// What the app calls host ranges (engine::HostRange): the same words in the timeline's rows, its
// tooltips, the details panel and the operations table.
#pragma once

#include <QCoreApplication>
#include <QString>

#include "engine/model/trace.h"

namespace streamscope::ui {

// "NVTX range", "CPU op", "annotation", "Python function": what one range is.
inline QString hostRangeCategoryLabel(engine::HostRangeCategory category)
{
    switch (category) {
    case engine::HostRangeCategory::Nvtx: return QCoreApplication::translate("HostRange", "NVTX range");
    case engine::HostRangeCategory::CpuOp: return QCoreApplication::translate("HostRange", "CPU op");
    case engine::HostRangeCategory::UserAnnotation: return QCoreApplication::translate("HostRange", "annotation");
    case engine::HostRangeCategory::PythonFunction: return QCoreApplication::translate("HostRange", "Python function");
    case engine::HostRangeCategory::Launch: return QCoreApplication::translate("HostRange", "graph launch");
    }
    return {};
}

// A row of ranges: "NVTX" where it holds NVTX ranges, "CPU ops" for the PyTorch profiler's.
inline QString rangeRowLabel(bool nvtx)
{
    return nvtx ? QStringLiteral("NVTX") : QCoreApplication::translate("HostRange", "CPU ops");
}

} // namespace streamscope::ui
