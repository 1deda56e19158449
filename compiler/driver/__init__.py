"""The compile driver: pipelines from a traced kernel to loadable code, and the compile cache."""
