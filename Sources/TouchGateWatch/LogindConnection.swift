internal import CDBus
import Glibc

/// The thin I/O layer of `touchgate watch` over libdbus-1: a private connection to the system
/// bus (`DBUS_SYSTEM_BUS_ADDRESS` when set), subscribed to logind's `PrepareForSleep` and to
/// `Lock` / `Unlock` of the sessions of one uid, and logind's sleep delay inhibitor.
///
/// Only signals whose sender is logind's current owner (or the bus driver, for its name
/// changes) count, so a process that sends a signal straight to this connection cannot pose as
/// logind. Single-threaded: the caller polls ``fileDescriptor`` and then reads ``pendingEvents()``.
package final class LogindConnection {
    static let logind = "org.freedesktop.login1"
    static let managerPath = "/org/freedesktop/login1"
    static let manager = "org.freedesktop.login1.Manager"
    static let session = "org.freedesktop.login1.Session"
    static let busDriver = "org.freedesktop.DBus"
    /// How long a call to logind may take before it counts as a failure (milliseconds).
    static let callTimeout: Int32 = 5_000

    private let connection: OpaquePointer
    private let uid: UInt32
    /// The object paths of the uid's logind sessions.
    package private(set) var sessionPaths: Set<String> = []
    /// logind's unique bus name, when it is on the bus.
    private var logindOwner: String?
    private var reportedDisconnect = false

    /// Whether logind owns its name on the bus.
    package var logindPresent: Bool { logindOwner != nil }

    /// Connects and subscribes; throws a ``BusError`` naming the failing step.
    package init(uid: UInt32) throws(BusError) {
        self.uid = uid
        var error = DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        guard let connection = dbus_bus_get_private(DBUS_BUS_SYSTEM, &error) else {
            throw BusError("cannot connect to the system bus: \(Self.message(error))")
        }
        self.connection = connection
        // libdbus would call exit() when the bus goes away; the watcher reconnects instead.
        dbus_connection_set_exit_on_disconnect(connection, 0)
        let rules = [
            "type='signal',sender='\(Self.logind)',path='\(Self.managerPath)',interface='\(Self.manager)',member='PrepareForSleep'",
            "type='signal',sender='\(Self.logind)',interface='\(Self.session)',member='Lock'",
            "type='signal',sender='\(Self.logind)',interface='\(Self.session)',member='Unlock'",
            "type='signal',sender='\(Self.busDriver)',interface='\(Self.busDriver)',member='NameOwnerChanged',arg0='\(Self.logind)'",
        ]
        for rule in rules {
            dbus_bus_add_match(connection, rule, &error)
            if dbus_error_is_set(&error) != 0 {
                let text = Self.message(error)
                close()
                throw BusError("cannot subscribe to logind's signals: \(text)")
            }
        }
        do {
            logindOwner = try nameOwner(Self.logind)
            if logindOwner != nil { try refreshSessions() }
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    private var closed = false

    /// Closes the connection (an inhibitor it took stays open until its descriptor is closed).
    package func close() {
        guard !closed else { return }
        closed = true
        dbus_connection_close(connection)
        dbus_connection_unref(connection)
    }

    /// The socket to poll for input, or -1.
    package var fileDescriptor: Int32 {
        var descriptor: Int32 = -1
        guard dbus_connection_get_unix_fd(connection, &descriptor) != 0 else { return -1 }
        return descriptor
    }

    /// Lists the uid's logind sessions again (`ListSessions`).
    package func refreshSessions() throws(BusError) {
        let reply = try call(Self.managerPath, Self.manager, "ListSessions", [])
        defer { dbus_message_unref(reply) }
        var paths: Set<String> = []
        var iterator = DBusMessageIter()
        guard dbus_message_iter_init(reply, &iterator) != 0, dbus_message_iter_get_arg_type(&iterator) == Self.typeArray else {
            throw BusError("logind's ListSessions answered with an unexpected signature")
        }
        var entries = DBusMessageIter()
        dbus_message_iter_recurse(&iterator, &entries)
        while dbus_message_iter_get_arg_type(&entries) == Self.typeStruct {
            var fields = DBusMessageIter()
            dbus_message_iter_recurse(&entries, &fields)
            // (id s, uid u, user s, seat s, path o): the uid is the second field, the path the last.
            var owner: UInt32?
            var objectPath: String?
            var index = 0
            repeat {
                let type = dbus_message_iter_get_arg_type(&fields)
                if index == 1, type == Self.typeUInt32 {
                    var value: UInt32 = 0
                    dbus_message_iter_get_basic(&fields, &value)
                    owner = value
                } else if index == 4, type == Self.typeObjectPath {
                    objectPath = Self.string(&fields)
                }
                index += 1
            } while dbus_message_iter_next(&fields) != 0
            if owner == uid, let objectPath { paths.insert(objectPath) }
            dbus_message_iter_next(&entries)
        }
        sessionPaths = paths
    }

    /// Takes a sleep delay inhibitor (`Inhibit("sleep", who, why, "delay")`) and returns its file
    /// descriptor: the machine waits (up to logind's `InhibitDelayMaxSec`) until it is closed.
    package func inhibitSleep(who: String, why: String) throws(BusError) -> Int32 {
        let reply = try call(Self.managerPath, Self.manager, "Inhibit", ["sleep", who, why, "delay"])
        defer { dbus_message_unref(reply) }
        var iterator = DBusMessageIter()
        guard dbus_message_iter_init(reply, &iterator) != 0, dbus_message_iter_get_arg_type(&iterator) == Self.typeUnixFD else {
            throw BusError("logind's Inhibit answered without a file descriptor")
        }
        var descriptor: Int32 = -1
        // libdbus hands out a duplicate that the caller owns.
        dbus_message_iter_get_basic(&iterator, &descriptor)
        guard descriptor >= 0 else { throw BusError("logind's Inhibit answered without a file descriptor") }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        return descriptor
    }

    /// What arrived since the last call, without blocking.
    package func pendingEvents() -> [LogindEvent] {
        var events: [LogindEvent] = []
        _ = dbus_connection_read_write(connection, 0)
        while let message = dbus_connection_pop_message(connection) {
            defer { dbus_message_unref(message) }
            if let event = interpret(message) { events.append(event) }
        }
        if dbus_connection_get_is_connected(connection) == 0, !reportedDisconnect {
            reportedDisconnect = true
            if events.last != .disconnected { events.append(.disconnected) }
        }
        return events
    }

    private func interpret(_ message: OpaquePointer) -> LogindEvent? {
        guard dbus_message_get_type(message) == DBUS_MESSAGE_TYPE_SIGNAL else { return nil }
        if dbus_message_is_signal(message, "org.freedesktop.DBus.Local", "Disconnected") != 0 {
            reportedDisconnect = true
            return .disconnected
        }
        let sender = dbus_message_get_sender(message).map { String(cString: $0) }
        if dbus_message_is_signal(message, Self.busDriver, "NameOwnerChanged") != 0 {
            guard sender == Self.busDriver else { return nil }
            let arguments = Self.strings(message)
            guard arguments.count == 3, arguments[0] == Self.logind else { return nil }
            logindOwner = arguments[2].isEmpty ? nil : arguments[2]
            if logindOwner != nil { try? refreshSessions() }
            return .logindPresent(logindOwner != nil)
        }
        // A signal sent straight to this connection passes no match rule: only logind's own count.
        guard let sender, sender == logindOwner else { return nil }
        let path = dbus_message_get_path(message).map { String(cString: $0) } ?? ""
        if dbus_message_is_signal(message, Self.manager, "PrepareForSleep") != 0, path == Self.managerPath {
            var iterator = DBusMessageIter()
            guard dbus_message_iter_init(message, &iterator) != 0, dbus_message_iter_get_arg_type(&iterator) == Self.typeBoolean else {
                return nil
            }
            var value: UInt32 = 0
            dbus_message_iter_get_basic(&iterator, &value)
            return .prepareForSleep(value != 0)
        }
        let lock = dbus_message_is_signal(message, Self.session, "Lock") != 0
        let unlock = dbus_message_is_signal(message, Self.session, "Unlock") != 0
        guard lock || unlock else { return nil }
        // A session that started after the last listing: list again before deciding.
        if !sessionPaths.contains(path) { try? refreshSessions() }
        guard sessionPaths.contains(path) else { return nil }
        return lock ? .lock : .unlock
    }

    /// The unique name that owns `name`, or `nil` when no one does (`GetNameOwner` fails then).
    private func nameOwner(_ name: String) throws(BusError) -> String? {
        guard let message = dbus_message_new_method_call(Self.busDriver, "/org/freedesktop/DBus", Self.busDriver, "GetNameOwner") else {
            throw BusError("out of memory")
        }
        defer { dbus_message_unref(message) }
        Self.append([name], to: message)
        var error = DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        guard let reply = dbus_connection_send_with_reply_and_block(connection, message, Self.callTimeout, &error) else {
            return nil
        }
        defer { dbus_message_unref(reply) }
        return Self.strings(reply).first
    }

    /// Calls logind's `member` on the D-Bus object at `objectPath` (not a file) with string
    /// arguments and returns the reply (the caller unrefs it).
    private func call(_ objectPath: String, _ interface: String, _ member: String, _ arguments: [String]) throws(BusError) -> OpaquePointer {
        guard let message = dbus_message_new_method_call(Self.logind, objectPath, interface, member) else {
            throw BusError("out of memory")
        }
        defer { dbus_message_unref(message) }
        Self.append(arguments, to: message)
        var error = DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        guard let reply = dbus_connection_send_with_reply_and_block(connection, message, Self.callTimeout, &error) else {
            throw BusError("logind's \(member) failed: \(Self.message(error))")
        }
        return reply
    }

    // MARK: - libdbus helpers (its type codes are character macros Swift does not import)

    static let typeString = Int32(UInt8(ascii: "s"))
    static let typeObjectPath = Int32(UInt8(ascii: "o"))
    static let typeUInt32 = Int32(UInt8(ascii: "u"))
    static let typeBoolean = Int32(UInt8(ascii: "b"))
    static let typeArray = Int32(UInt8(ascii: "a"))
    static let typeStruct = Int32(UInt8(ascii: "r"))
    static let typeUnixFD = Int32(UInt8(ascii: "h"))

    private static func append(_ strings: [String], to message: OpaquePointer) {
        var iterator = DBusMessageIter()
        dbus_message_iter_init_append(message, &iterator)
        for string in strings {
            string.withCString { pointer in
                var value: UnsafePointer<CChar>? = pointer
                _ = dbus_message_iter_append_basic(&iterator, typeString, &value)
            }
        }
    }

    /// The leading string arguments of `message`.
    private static func strings(_ message: OpaquePointer) -> [String] {
        var iterator = DBusMessageIter()
        guard dbus_message_iter_init(message, &iterator) != 0 else { return [] }
        var result: [String] = []
        repeat {
            let type = dbus_message_iter_get_arg_type(&iterator)
            guard type == typeString || type == typeObjectPath else { break }
            result.append(string(&iterator))
        } while dbus_message_iter_next(&iterator) != 0
        return result
    }

    private static func string(_ iterator: inout DBusMessageIter) -> String {
        var value: UnsafePointer<CChar>?
        dbus_message_iter_get_basic(&iterator, &value)
        return value.map { String(cString: $0) } ?? ""
    }

    private static func message(_ error: DBusError) -> String {
        error.message.map { String(cString: $0) } ?? "unknown error"
    }
}
