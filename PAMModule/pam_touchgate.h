#ifndef TOUCHGATE_PAM_MODULE_H
#define TOUCHGATE_PAM_MODULE_H
// pam_touchgate.so: the PAM module. A C shim with no Swift runtime, no threads and no signal
// handlers in the host; it runs touchgate-pam-helper and relays the host's conversation to it.
// The wire protocol it shares with the helper (Sources/touchgate-pam-helper/HelperChannel.swift):
// frames of one kind byte, a two-byte big-endian length, then at most TOUCHGATE_FRAME_MAX bytes.

#define TOUCHGATE_FRAME_MAX 1024

// module -> helper
#define TOUCHGATE_FRAME_START 'S'   // items: user, ruser, service, tty, rhost, factor, flags (2-byte length each;
                                    // flags: "terminal" and "silent", space-separated)
#define TOUCHGATE_FRAME_ANSWER 'A'  // the answer to the last prompt
#define TOUCHGATE_FRAME_NO_ANSWER 'N' // the host's conversation failed or gave no answer
// helper -> module
#define TOUCHGATE_FRAME_PROMPT_OFF 'P' // a prompt, echo off
#define TOUCHGATE_FRAME_PROMPT_ON 'Q'  // a prompt, echo on
#define TOUCHGATE_FRAME_INFO 'I'
#define TOUCHGATE_FRAME_ERROR 'E'
#define TOUCHGATE_FRAME_OUTCOME 'O'  // 4 bytes: the LAError code, big-endian two's complement

#endif
