#pragma once
// GLFW without an OpenGL header, after volk: glfw3.h declares glfwCreateWindowSurface only
// when the Vulkan types are already defined.
#include <volk.h>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
