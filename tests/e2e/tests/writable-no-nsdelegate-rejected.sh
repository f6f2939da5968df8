# e2e-mode: no-nsdelegate
# e2e-timeout: 60
# KEP-5474: on cgroup v2 without nsdelegate a pod with a Writable container is rejected by node
# admission, the message naming the cause (nsdelegate), exit 1, nothing created.
need_podlimits_run
pl_run writable-no-nsdelegate.yaml
expect_rejected '^ +Warning +FailedNodeDeclaredFeaturesCheck +CgroupOptions\.MountMode=Writable requires .*nsdelegate'
expect_no_file_match "container output" "$W/run.err" 'should never run'
