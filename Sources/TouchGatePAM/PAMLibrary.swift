internal import CPAM
import Glibc

/// libpam's entry points, loaded at the first PAM transaction instead of when the process starts.
///
/// Most runs never talk to PAM (the gate's fast path, `status`, the owner at every login shell),
/// yet a library the executable names is loaded, relocated and initialised before `main`: libpam
/// brings libaudit and libcap-ng, whose constructor reads `/proc`. So the executables do not link
/// libpam (CPAM's module map names no library); the first transaction opens `libpam.so.0` with
/// the same search rules a linked library has (in a secure-execution process `LD_LIBRARY_PATH`
/// is ignored as well) and into the global scope, and each function is looked up there, so a
/// preloaded pam_wrapper still takes `pam_start` first, as it does for a linked program.
/// A libpam that cannot be opened, or lacks a function, fails the transaction before any module
/// runs (``PAMTransaction/End/started`` is false): nothing is checked, nothing unlocks.
struct PAMLibrary: Sendable {
    typealias Start = @convention(c) (
        UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafePointer<pam_conv>?, UnsafeMutablePointer<OpaquePointer?>?
    ) -> Int32
    typealias StartConfdir = @convention(c) (
        UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafePointer<pam_conv>?, UnsafePointer<CChar>?,
        UnsafeMutablePointer<OpaquePointer?>?
    ) -> Int32
    typealias SetItem = @convention(c) (OpaquePointer?, Int32, UnsafeRawPointer?) -> Int32
    typealias HandleCall = @convention(c) (OpaquePointer?, Int32) -> Int32

    /// The library's soname, as a program linked with `-lpam` names it.
    static let soname = "libpam.so.0"

    let start: Start
    /// `pam_start_confdir` (libpam 1.4 and later), or `nil` when this libpam has none.
    let startConfdir: StartConfdir?
    let setItem: SetItem
    let authenticate: HandleCall
    let end: HandleCall

    /// The process's libpam, opened once; `nil` when it could not be opened or lacks a function.
    static let loaded: PAMLibrary? = load()

    private static func load() -> PAMLibrary? {
        guard dlopen(soname, RTLD_NOW | RTLD_GLOBAL) != nil,
              let start = dlsym(nil, "pam_start"),
              let setItem = dlsym(nil, "pam_set_item"),
              let authenticate = dlsym(nil, "pam_authenticate"),
              let end = dlsym(nil, "pam_end")
        else { return nil }
        return PAMLibrary(
            start: unsafeBitCast(start, to: Start.self),
            startConfdir: dlsym(nil, "pam_start_confdir").map { unsafeBitCast($0, to: StartConfdir.self) },
            setItem: unsafeBitCast(setItem, to: SetItem.self),
            authenticate: unsafeBitCast(authenticate, to: HandleCall.self),
            end: unsafeBitCast(end, to: HandleCall.self))
    }
}
