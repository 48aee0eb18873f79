#include <ros/console.h>
#include <ros/param.h>
#include <xmlrpcpp/XmlRpcValue.h>

#include <set>

#include "ros_side.hpp"

namespace voxen_ros {

Parameters readParameters(const ros::NodeHandle& priv) {
  Parameters p;
  for (const ParameterSpec& spec : parameterSpecs()) {
    XmlRpc::XmlRpcValue v;
    if (!priv.getParam(spec.name, v)) continue;
    switch (v.getType()) {
      case XmlRpc::XmlRpcValue::TypeDouble: p.numbers[spec.name] = static_cast<double>(v); break;
      case XmlRpc::XmlRpcValue::TypeInt: p.integers[spec.name] = static_cast<int>(v); break;
      case XmlRpc::XmlRpcValue::TypeBoolean: p.flags[spec.name] = static_cast<bool>(v); break;
      case XmlRpc::XmlRpcValue::TypeString: p.texts[spec.name] = static_cast<std::string>(v); break;
      case XmlRpc::XmlRpcValue::TypeArray: {
        std::vector<double>& list = p.lists[spec.name];
        for (int i = 0; i < v.size(); ++i) {
          XmlRpc::XmlRpcValue& e = v[i];
          if (e.getType() == XmlRpc::XmlRpcValue::TypeDouble) list.push_back(static_cast<double>(e));
          else if (e.getType() == XmlRpc::XmlRpcValue::TypeInt) list.push_back(static_cast<int>(e));
          else throw std::runtime_error(std::string("parameter ~") + spec.name + ": must be a list of numbers");
        }
        break;
      }
      default: throw std::runtime_error(std::string("parameter ~") + spec.name + ": has a type the node does not read");
    }
    // A kind given another way (a flag as a string, a list as a number) is refused by name.
    const bool ok = (spec.kind == ParameterKind::Number && (p.numbers.count(spec.name) || p.integers.count(spec.name))) ||
                    (spec.kind == ParameterKind::Integer && (p.integers.count(spec.name) || p.numbers.count(spec.name))) ||
                    (spec.kind == ParameterKind::Flag && p.flags.count(spec.name)) ||
                    (spec.kind == ParameterKind::Text && p.texts.count(spec.name)) ||
                    (spec.kind == ParameterKind::List && p.lists.count(spec.name));
    if (!ok) {
      const char* kinds[] = {"a number", "an integer", "true or false", "a string", "a list of numbers"};
      throw std::runtime_error(std::string("parameter ~") + spec.name + ": must be " + kinds[int(spec.kind)]);
    }
  }
  // A parameter the node does not read is most likely a typo (~resolutoin): said, not ignored.
  std::set<std::string> known;
  for (const ParameterSpec& spec : parameterSpecs()) known.insert(spec.name);
  std::vector<std::string> names;
  const std::string prefix = priv.getNamespace() + "/";
  if (ros::param::getParamNames(names))
    for (const std::string& name : names)
      if (name.rfind(prefix, 0) == 0 && !known.count(name.substr(prefix.size())))
        ROS_WARN("voxen_ros: parameter ~%s is not one the node reads (docs/ros1.md lists them); ignored",
                 name.substr(prefix.size()).c_str());
  return p;
}

}  // namespace voxen_ros
