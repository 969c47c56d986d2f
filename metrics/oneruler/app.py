import os

import evaluate
from evaluate.utils import launch_gradio_widget

# the script beside this file, whatever the Space is called
module = evaluate.load(os.path.join(os.path.dirname(os.path.abspath(__file__)), "oneruler.py"))
launch_gradio_widget(module)
