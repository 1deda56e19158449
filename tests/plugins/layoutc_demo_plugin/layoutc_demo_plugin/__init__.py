"""A demo layoutc plugin: the ``demo`` dialect (``demo.square``) and the ``demo-expand`` pass."""
