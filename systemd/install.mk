# `make install`: included by the top-level Makefile. Installs a release build and the systemd
# integration into $(DESTDIR)$(PREFIX) and $(DESTDIR)/usr/lib, $(DESTDIR)/etc:
#   swift build -c release && make install DESTDIR=/tmp/stage
# After a real install (no DESTDIR), activate it with:
#   systemd-sysusers locd.conf && systemd-tmpfiles --create locd.conf && systemctl daemon-reload
#   systemctl enable --now locd.socket    (and locd-gpsd.socket when the provider is gpsd)

PREFIX ?= /usr
DESTDIR ?=
# Where the binaries are: swift build's release folder unless told otherwise.
BUILD ?= .build/release

SYSTEMD_UNIT_DIR ?= /usr/lib/systemd/system
SYSUSERS_DIR ?= /usr/lib/sysusers.d
TMPFILES_DIR ?= /usr/lib/tmpfiles.d
LOCD_UNITS = locd.socket locd.service locd-gpsd.socket locd-gpsd.service

.PHONY: install

# The units name /usr/bin/locd: the copies follow PREFIX. The configuration belongs to the
# administrator once installed, so an existing /etc/locd/locd.toml is never overwritten. Manifests
# shipped with locd go to $(PREFIX)/share/locd/apps.d; administrators add theirs in /etc/locd/apps.d.
install:
	install -D -m 0755 $(BUILD)/locd $(DESTDIR)$(PREFIX)/bin/locd
	if [ -e $(BUILD)/locctl ]; then install -D -m 0755 $(BUILD)/locctl $(DESTDIR)$(PREFIX)/bin/locctl; fi
	for unit in $(LOCD_UNITS); do \
		sed 's|/usr/bin/locd|$(PREFIX)/bin/locd|g' systemd/$$unit \
			| install -D -m 0644 /dev/stdin $(DESTDIR)$(SYSTEMD_UNIT_DIR)/$$unit || exit 1; \
	done
	install -D -m 0644 systemd/locd.sysusers.conf $(DESTDIR)$(SYSUSERS_DIR)/locd.conf
	install -D -m 0644 systemd/locd.tmpfiles.conf $(DESTDIR)$(TMPFILES_DIR)/locd.conf
	if [ -e config/locd.toml ] && [ ! -e $(DESTDIR)/etc/locd/locd.toml ]; then \
		install -D -m 0644 config/locd.toml $(DESTDIR)/etc/locd/locd.toml; \
	fi
	install -d -m 0755 $(DESTDIR)$(PREFIX)/share/locd/apps.d
	for manifest in config/apps.d/*.toml; do \
		[ -e "$$manifest" ] || continue; \
		install -D -m 0644 -t $(DESTDIR)$(PREFIX)/share/locd/apps.d "$$manifest" || exit 1; \
	done
