# e2e-timeout: 90
# AppArmor applied where the kernel has it: podlimits-default (loaded with Debian's
# apparmor_parser the first time) for a container that sets nothing and for RuntimeDefault,
# nothing for Unconfined; the profile denies mount(2) to a container with CAP_SYS_ADMIN, which
# the same container without the profile may call.
need_pods
[ "$(cat /sys/module/apparmor/parameters/enabled 2>/dev/null)" = Y ] ||
  fail "the guest kernel has no AppArmor (boot parameters?)"
pl_run apparmor.yaml
expect_succeeded
expect_eq "the plain container's profile" "$(container_value plain profile)" "podlimits-default (enforce)"
expect_eq "RuntimeDefault's profile" "$(container_value asked profile)" "podlimits-default (enforce)"
expect_eq "Unconfined's profile" "$(container_value unconfined profile)" unconfined
expect_eq "mount under podlimits-default" "$(container_value plain mount)" denied
expect_eq "mount unconfined" "$(container_value unconfined mount)" allowed
grep -q '^podlimits-default (enforce)$' /sys/kernel/security/apparmor/profiles ||
  fail "podlimits-default is not among the loaded profiles"
