# Runs one QA file as a script (python3.11 device_qa_run.py LIBS QA_FILE) and, at exit,
# writes every shared library the process had loaded to LIBS, one path a line: the check
# that nothing came from the host system that the carried packages should have given.
# Used by scripts/device-python-qa.sh; QA files need nothing from it.
import atexit
import os
import runpy
import sys

libs_file, qa_file = sys.argv[1], os.path.abspath(sys.argv[2])


def dump_libs():
    with open("/proc/self/maps") as maps, open(libs_file, "w") as out:
        paths = {line.split()[-1] for line in maps if ".so" in line.split()[-1]}
        out.write("".join(p + "\n" for p in sorted(paths)))


atexit.register(dump_libs)
sys.argv = [qa_file]
sys.path[0] = os.path.dirname(qa_file)  # as `python3 qa_x.py` would: helpers import
runpy.run_path(qa_file, run_name="__main__")
