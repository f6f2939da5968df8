# e2e-timeout: 90
# KEP-5758: ulimits apply to a privileged container (every capability the node has) and to an
# unprivileged one (the runtime's default set) alike, each container its own values.
need_pods
pl_run ulimits-privileged.yaml
expect_succeeded
expect_limits priv "nofile 2048 8192" "core 4096 unlimited"
expect_limits unpriv "nofile 512 1024" "core 0 0"
node_caps=$(sed -n 's/^CapBnd:[[:space:]]*//p' /proc/self/status)
priv_caps=$(container_lines priv | sed -n 's/^CapEff:[[:space:]]*//p')
unpriv_caps=$(container_lines unpriv | sed -n 's/^CapEff:[[:space:]]*//p')
expect_eq "CapEff of the privileged container" "$priv_caps" "$node_caps"
if [ -z "$unpriv_caps" ] || [ "$unpriv_caps" = "$node_caps" ]; then
  fail "the unprivileged container has CapEff '$unpriv_caps' (the node's set is $node_caps)"
fi
