"""The daemon as a service: systemd's notify protocol, the headless daemon, the runner."""
