// Settling (see settling.h).
#include "engine/run/settling.h"

#include <algorithm>

#include "engine/model/units.h"

namespace streamscope::engine {

PendingOps::PendingOps(const std::vector<const void *> &streams)
{
    for (std::size_t i = 0; i < streams.size(); ++i) {
        if (!streams[i])
            continue;
        auto it =
            std::find_if(m_streams.begin(), m_streams.end(), [&](const Stream &s) { return s.stream == streams[i]; });
        if (it == m_streams.end())
            it = m_streams.insert(m_streams.end(), Stream{streams[i], {}, 0});
        it->ops.push_back(i);
    }
}

void PendingOps::restart()
{
    for (Stream &s : m_streams)
        s.next = 0;
}

bool PendingOps::advance(const Issued &issued, const Query &query)
{
    for (Stream &s : m_streams) {
        while (s.next < s.ops.size() && issued(s.ops[s.next])) {
            const State state = query(s.ops[s.next]);
            if (state == State::NotReady)
                break;
            if (state == State::Failed)
                return false;
            ++s.next;
        }
    }
    return true;
}

std::string PendingOps::unfinished(const std::vector<PlannedOp> &ops, const Issued &issued, bool kernels) const
{
    std::vector<std::string> list;
    for (const Stream &s : m_streams) {
        for (std::size_t k = s.next; k < s.ops.size() && issued(s.ops[k]); ++k) {
            const PlannedOp &op = ops[s.ops[k]];
            if (kernels && op.kind != OpKind::Kernel)
                continue;
            list.push_back(op.context);
            break;
        }
    }
    std::string text;
    for (std::size_t i = 0; i < list.size() && i < 4; ++i)
        text += (i ? "; " : "") + list[i];
    if (list.size() > 4)
        text += "; and " + std::to_string(list.size() - 4) + " more";
    return text;
}

std::string unsettledMessage(const Error *cause, const std::string &workloadName, const std::string &running)
{
    std::string what = cause ? cause->what() : std::string("run of workload " + quoted(workloadName) + " failed");
    what += "; its GPU work did not end within " + formatDuration(kSettleNs);
    if (!running.empty() && what.find(running) == std::string::npos)
        what += " (still running: " + running + ")";
    return what;
}

std::string faultMessage(const std::string &what, const std::string &stickyText, const std::string &kernels)
{
    std::string message = what;
    message += "; a kernel failed on the GPU (" + stickyText
               + ", a sticky error: CUDA reports it from whichever call comes next, and the process cannot use "
                 "CUDA again)";
    if (!kernels.empty())
        message +=
            kernels.find(';') == std::string::npos ? ": " + kernels : "; the kernels still running were: " + kernels;
    return message;
}

Error stoppedWhileRunning(const Error &stop, const std::string &running)
{
    return Error(stop.kind(), std::string(stop.what()) + (running.empty() ? "" : ", while the GPU ran " + running));
}

} // namespace streamscope::engine
