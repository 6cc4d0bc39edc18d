from kibitz._core import *  # noqa
