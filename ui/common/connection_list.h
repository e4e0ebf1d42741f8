// ConnectionList: the connections a view made to a model it binds to (TraceDocument), cut together when
// it binds to another one or to none. Every view's setDocument() starts with clear().
#pragma once

#include <QList>
#include <QObject>

namespace streamscope::ui {

class ConnectionList {
public:
    ConnectionList() = default;
    ConnectionList(const ConnectionList &) = delete;
    ConnectionList &operator=(const ConnectionList &) = delete;
    ~ConnectionList() { clear(); }

    ConnectionList &operator<<(const QMetaObject::Connection &connection)
    {
        m_connections << connection;
        return *this;
    }
    void clear()
    {
        for (const auto &c : std::as_const(m_connections))
            QObject::disconnect(c);
        m_connections.clear();
    }

private:
    QList<QMetaObject::Connection> m_connections;
};

} // namespace streamscope::ui
