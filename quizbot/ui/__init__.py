"""The Gradio interface. The only package that imports gradio; handlers call plain services."""
