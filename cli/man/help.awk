# SPDX-License-Identifier: Apache-2.0
# Reshapes a `clgather ... --help` text for help2man (make_pages.sh), which
# takes the SYNOPSIS from a "Usage:" line and "or:" lines, one line each,
# and starts a section at a line "*Name*":
#  - the usage's indented continuation lines are joined to its line, and
#    a second form ("       clgather compare ...") becomes an "or:" line;
#  - the paragraph that starts "Exit status" opens a section EXIT STATUS.
# Everything else passes unchanged.
usage && /^[ \t]+clgather / {
    print line
    sub(/^[ \t]+/, "")
    line = "  or: " $0
    next
}
usage && /^[ \t]+[^ \t]/ {
    sub(/^[ \t]+/, "")
    line = line " " $0
    next
}
usage {
    print line
    usage = 0
}
/^Usage: / {
    usage = 1
    line = $0
    next
}
/^Exit status/ {
    print ""
    print "*Exit status*"
}
{ print }
END {
    if (usage)
        print line
}
