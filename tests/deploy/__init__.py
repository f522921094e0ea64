"""Static checks of the deployment files (collector configs, docker-compose.yml, Dockerfile)."""
