// The parts of libsystemd that SystemdSupport calls: sd_notify, socket activation, the watchdog and
// sd_journal_sendv. The variadic functions (sd_notifyf, sd_journal_send, sd_journal_print) do not
// import into Swift; SystemdSupport uses the non-variadic forms.
#pragma once

#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>
