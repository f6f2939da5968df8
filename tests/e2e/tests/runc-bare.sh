# e2e-mode: nsdelegate
# e2e-timeout: 60
# The same check with runc, the node's other OCI runtime (NodeConfiguration runtime.name: runc).
bare_runtime_check runc
