// The function behind Swift's `CommandLine.arguments`, for the `touchgate` executable.
//
// On Linux the Swift runtime finds `argv` with a static initializer (`ArgvGrabber` in the
// runtime's CommandLine.cpp) that reads and parses `/proc/self/maps` at every start, whether or
// not the program looks at its arguments: ≈ 0.25 ms of each touchgate process on the benchmark
// machine (bench/RESULTS.md). glibc passes `argc` and `argv` to every ELF constructor, as Rust's
// standard library relies on, so a constructor can keep them instead. Linked into the executable,
// these definitions satisfy the standard library's references, so the linker never takes the
// runtime's CommandLine.cpp.o out of libswiftCore.a (if it did, the duplicate symbols would stop
// the link). With the shared Swift runtime (debug builds), its own definitions are used.
// `CommandLineCaptureTests` checks both the arguments and that the runtime's initializer is gone.

static int capturedCount;
static char **capturedArguments;
static char *noArguments[] = { 0 };

__attribute__((constructor)) static void captureArguments(int count, char **arguments, char **environment) {
    (void)environment;
    capturedCount = count;
    capturedArguments = arguments;
}

// Same names and calling convention (swiftcall) as the runtime's, in RuntimeStubs.h. Hidden: the
// static link resolves the runtime's references to them, and a shared Swift runtime, which has
// its own, never binds to them.
__attribute__((swiftcall, visibility("hidden"))) char **_swift_stdlib_getUnsafeArgvArgc(int *count) {
    if (!capturedArguments) {
        *count = 0;
        return noArguments;
    }
    *count = capturedCount;
    return capturedArguments;
}

__attribute__((swiftcall, visibility("hidden"))) void _swift_stdlib_overrideUnsafeArgvArgc(char **arguments, int count) {
    capturedArguments = arguments;
    capturedCount = count;
}
